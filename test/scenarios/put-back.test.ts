/**
 * What a person puts back while docsync deletes it in the service, with the real engine, folder,
 * state and simulator (the daemon's cases are test/integration/daemon-put-back.test.ts): a file
 * put back while its attachment's delete is under way, and a folder put back after its delete
 * went out, created again from the folder, also when a crash cuts that create in the middle.
 */
import { renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FailpointHook } from '../../src/engine/failpoints.js';
import { runCycle } from '../../src/engine/run-cycle.js';
import { onceBefore } from '../helpers/seams.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

async function synced() {
  const h = await start();
  const [company] = await h.owners();
  const doc = h.sim.admin.createDocument({ owner: company!, name: 'Solvency Resolution' });
  const id = String(doc.id);
  h.sim.admin.addAttachment(id, { name: 'resolution.pdf', bytes: 'resolution v1' });
  h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'minutes v1' });
  await h.sync();
  const folder = h.documentFolder(id)!;
  h.resetCounters();
  return { h, id, folder, company: company! };
}

describe('put back while docsync deletes it in the service', () => {
  it('a file put back while its attachment is copied to the trash: not deleted in the service', async () => {
    const { h, id, folder } = await synced();
    const file = path.join(h.root, folder, 'minutes.pdf');
    const away = `${h.root}-minutes.pdf`;
    renameSync(file, away);

    // The service's copy is on its way to the trash; meanwhile the person puts the file back.
    const remote = onceBefore(h.deps.remote, 'downloadAttachment', () => renameSync(away, file));
    await runCycle({ ...h.deps, remote }, { trigger: 'once', fullReconcile: true });
    expect(remote.fired()).toBe(true);

    expect((await h.remoteDoc(id))!.attachments.map((a) => a.sha256)).toContain(
      sha256('minutes v1'),
    );
    expect(h.writesToService()).toEqual({});
    await h.sync();
    expect(h.writesToService()).toEqual({});
    await expectInSync(h);
  });

  it('a crash while a put-back folder is created again: settled as one document, never two', async () => {
    const { h, id, folder, company } = await synced();
    const away = `${h.root}-away`;
    renameSync(path.join(h.root, folder), away);
    await h.sync(); // the delete goes through
    expect(await h.remoteDoc(id)).toBeUndefined();
    expect([...h.state.deletedInService.among(company, [id])]).toEqual([id]);
    renameSync(away, path.join(h.root, folder));
    const before = (await h.remote()).documents.length;

    // The create reaches the service; the process dies before the folder names the new id.
    const crash: FailpointHook = async (step, site) => {
      if (step === 'before-local-write' && site.what === '.document.json' && site.documentId === id)
        throw new Error('killed');
    };
    await runCycle({ ...h.deps, failpoint: crash }, { trigger: 'once', fullReconcile: true });
    expect(h.meta(folder).id, 'the folder still names the old id').toBe(id);
    expect((await h.remote()).documents).toHaveLength(before + 1);

    // The next run settles the create it left in doubt: the folder is linked to it, and the
    // put-back folder is not created a second time.
    await h.sync();
    const after = (await h.remote()).documents;
    expect(after).toHaveLength(before + 1);
    const again = after.find((d) => d.name === 'Solvency Resolution')!;
    expect(h.meta(folder).id).toBe(again.id);
    expect(again.attachments.map((a) => a.sha256).sort()).toEqual(
      [sha256('minutes v1'), sha256('resolution v1')].sort(),
    );
    expect([...h.state.deletedInService.among(company, [id])]).toEqual([]);
    h.resetCounters();
    await h.sync();
    expect(h.writesToService()).toEqual({});
    await expectInSync(h);
  });
});
