/**
 * A person edits the folder while a sync is under way (issue 25): between the scan and the
 * writes planned from it. A write over what changed meanwhile is dropped, and the document is
 * planned again from a new scan, which sees the edit: it is kept, or kept as a recorded
 * conflict, never overwritten by a plan that did not see it. The moment is a seam at a port
 * (test/helpers/seams.ts); the folder, the state and the service are real.
 */
import { describe, expect, it } from 'vitest';
import { REAL_CLOCK } from '../../src/domain/clock.js';
import type { CycleOptions } from '../../src/engine/run-cycle.js';
import { runCycle } from '../../src/engine/run-cycle.js';
import { runUntilSettled } from '../../src/engine/run-until-settled.js';
import { onceBefore } from '../helpers/seams.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { type SyncHarness, sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const MINUTE = 60_000;

async function synced() {
  const h = await start();
  const [company] = await h.owners();
  const doc = h.sim.admin.createDocument({ owner: company!, name: 'Solvency Resolution' });
  const id = String(doc.id);
  h.sim.admin.addAttachment(id, { name: 'resolution.pdf', bytes: 'resolution v1' });
  await h.sync();
  const folder = h.documentFolder(id)!;
  h.resetCounters();
  return { h, id, folder };
}

/** One cycle with a person's `act` just before the engine's first call of `method`. */
async function syncWith<K extends keyof SyncHarness['deps']['remote']>(
  h: SyncHarness,
  method: K,
  act: () => void,
  options: Partial<CycleOptions> = {},
) {
  const remote = onceBefore(h.deps.remote, method, act);
  const report = await runCycle(
    { ...h.deps, remote },
    { trigger: 'once', fullReconcile: true, ...options },
  );
  expect(remote.fired(), `the seam at ${String(method)} was reached`).toBe(true);
  return report;
}

describe('a person edits while a sync is under way', () => {
  it("a status typed into .document.json while the service's details are on their way is kept, and wins as a recorded conflict (case 1)", async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.assignStatus(id, { typeId: 21 }); // LODGED, as a webhook would announce

    // The details answer is late; meanwhile the person sets the status by hand.
    await syncWith(h, 'document', () =>
      h.editMeta(folder, (m) => ({ ...m, status: 'cancelled' }), Date.now() + MINUTE),
    );

    expect(h.meta(folder).status, 'the hand edit is still in the folder').toBe('cancelled');
    expect(h.writesToService()).toEqual({});

    await h.sync();

    expect((await h.remoteDoc(id))!.status).toMatchObject({ type: 'CANCELLED' });
    expect(h.meta(folder).status).toBe('CANCELLED');
    const conflicts = h.state.conflicts.list().filter((c) => c.documentId === id);
    expect(conflicts).toMatchObject([{ winner: 'local' }]);
    await expectInSync(h);
  });

  it('under --once, the run plans the document again itself and ends in step, exit 0', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.assignStatus(id, { typeId: 21 });
    const remote = onceBefore(h.deps.remote, 'document', () =>
      h.editMeta(folder, (m) => ({ ...m, status: 'cancelled' }), Date.now() + MINUTE),
    );

    const report = await runUntilSettled(
      { ...h.deps, remote },
      { trigger: 'once', fullReconcile: true },
      { settleMs: 0, maxWaitMs: 10_000, clock: REAL_CLOCK },
    );

    expect(remote.fired()).toBe(true);
    expect(report).toMatchObject({ exitCode: 0, documentsFailed: 0, settling: [] });
    expect((await h.remoteDoc(id))!.status).toMatchObject({ type: 'CANCELLED' });
    await expectInSync(h);
  });

  it('a file added to a folder while the sync learns its document was deleted: the folder is not trashed, and the document comes back', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.deleteDocument(id);

    // The full listing is read after the scan; the person saves a file meanwhile.
    await syncWith(h, 'documentVersions', () =>
      h.write(`${folder}/signed page.pdf`, 'signed by the director'),
    );

    expect(h.read(`${folder}/signed page.pdf`).toString()).toBe('signed by the director');
    expect(h.trash().size, 'nothing went to the trash').toBe(0);

    await h.sync();

    const dump = await h.remote();
    const restored = dump.documents.find((d) => d.name === 'Solvency Resolution');
    expect(restored?.attachments.map((a) => a.sha256)).toContain(sha256('signed by the director'));
    await expectInSync(h);
  });

  it('a file edited while the sync is under way is not moved to the trash with the attachment the service removed', async () => {
    const { h, id, folder } = await synced();
    const [attachment] = (await h.remoteDoc(id))!.attachments;
    h.sim.admin.deleteAttachment(id, attachment!.id);

    await syncWith(h, 'document', () => h.write(`${folder}/resolution.pdf`, 'resolution v2'));

    expect(h.read(`${folder}/resolution.pdf`).toString()).toBe('resolution v2');
    await h.sync();
    // Modify beats delete (row 33): the edit goes up as a new attachment.
    const hashes = (await h.remoteDoc(id))!.attachments.map((a) => a.sha256);
    expect(hashes).toEqual([sha256('resolution v2')]);
    await expectInSync(h);
  });
});

describe('a status the service refused (case 2)', () => {
  it('stays in .document.json when the service changes the document, and stays in error', async () => {
    const { h, id, folder } = await synced();
    h.editMeta(folder, (m) => ({ ...m, status: 'Awaiting Partner Signoff' }));

    const refused = await h.sync();

    expect(refused.exitCode).toBe(3);
    expect(h.writesToService()).toEqual({});

    h.sim.admin.addAttachment(id, { name: 'partner note.pdf', bytes: 'note' });
    const pulled = await h.sync();

    expect(h.read(`${folder}/partner note.pdf`).toString()).toBe('note');
    expect(h.meta(folder).status, 'the typed status is kept').toBe('Awaiting Partner Signoff');
    expect(pulled.exitCode).toBe(3);
    const again = await h.sync();
    expect(again.exitCode, 'still in error, not silently in sync').toBe(3);
    expect(h.meta(folder).status).toBe('Awaiting Partner Signoff');
  });

  it('stays in .document.json when a file of the document is pushed beside it', async () => {
    const { h, id, folder } = await synced();
    h.editMeta(folder, (m) => ({ ...m, status: 'Awaiting Partner Signoff' }));
    h.write(`${folder}/cover.pdf`, 'cover');

    const report = await h.sync();

    expect(report.exitCode).toBe(3);
    const names = (await h.remoteDoc(id))!.attachments.map((a) => a.name);
    expect(names).toContain('cover.pdf');
    expect(h.meta(folder).status).toBe('Awaiting Partner Signoff');
    expect((await h.remoteDoc(id))!.status?.type).not.toBe('Awaiting Partner Signoff');
  });

  it('once corrected to a status the service has, is pushed', async () => {
    const { h, id, folder } = await synced();
    h.editMeta(folder, (m) => ({ ...m, status: 'Awaiting Partner Signoff' }));
    await h.sync();
    h.sim.admin.addAttachment(id, { name: 'partner note.pdf', bytes: 'note' });
    await h.sync();

    h.editMeta(folder, (m) => ({ ...m, status: 'cancelled' }));
    const report = await h.sync();

    expect(report.exitCode).toBe(0);
    expect((await h.remoteDoc(id))!.status).toMatchObject({ type: 'CANCELLED' });
    await expectInSync(h);
  });
});
