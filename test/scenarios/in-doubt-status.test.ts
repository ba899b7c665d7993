/**
 * A status push left in doubt by a crash (sent, the service assigned it, docsync died before
 * recording it) settles like one that was not interrupted: `.document.json` then shows the
 * service's status name and date, not the letters the user typed; a newer edit made before the
 * restart is pushed, not overwritten. (Written while chasing chaos seed 21, whose failure turned
 * out to be a no-op edit; see test/chaos/local-edits.ts.)
 */
import { describe, expect, it } from 'vitest';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
type Harness = Awaited<ReturnType<typeof start>>;
type Doc = Awaited<ReturnType<Harness['remote']>>['documents'][number];

/** What the killed run did: recorded the push, marked it sent, and the service assigned it. */
function statusPushLeftInDoubt(h: Harness, doc: Doc) {
  const status = h.sim.admin.assignStatus(doc.id, { typeId: 10 });
  const id = h.state.outbox.record({
    owner: doc.owner,
    documentId: doc.id,
    kind: 'assign-status',
    payload: { typeId: '10', effectiveDate: status.effectiveDate },
  });
  h.state.outbox.markSent(id);
  return status;
}

describe('a status push settled after a crash', () => {
  it('rewrites .document.json with the service name and date of the status', async () => {
    const h = await start();
    await h.sync();
    const doc = (await h.remote()).documents[0]!;
    const folder = h.documentFolder(doc.id)!;
    h.editMeta(folder, (m) => ({ ...m, status: 'Received' }));
    const status = statusPushLeftInDoubt(h, doc);

    await h.sync();

    expect(h.state.outbox.inDoubt()).toEqual([]);
    expect(h.meta(folder)).toMatchObject({ status: 'RECEIVED', statusDate: status.effectiveDate });
    await expectInSync(h);
    await expectQuiet(h);
  });

  it("records the conflict of a status that won over a service user's (row 23) once found carried out", async () => {
    const h = await start();
    await h.sync();
    const doc = (await h.remote()).documents[0]!;
    const folder = h.documentFolder(doc.id)!;
    // A service user set LODGED; the folder's newer "Received" was pushed over it, and the push's
    // answer was lost: no answer came back to record the conflict with.
    h.sim.admin.assignStatus(doc.id, { typeId: 21 });
    h.editMeta(folder, (m) => ({ ...m, status: 'Received' }), Date.now() + 60_000);
    const status = h.sim.admin.assignStatus(doc.id, { typeId: 10 });
    const lost = { detail: 'row 23: status set on both sides (folder newer)', lost: 'LODGED' };
    const id = h.state.outbox.record({
      owner: doc.owner,
      documentId: doc.id,
      kind: 'assign-status',
      payload: { typeId: '10', effectiveDate: status.effectiveDate, conflict: lost },
    });
    h.state.outbox.markSent(id);

    await h.sync();

    expect(h.state.outbox.inDoubt()).toEqual([]);
    expect(h.state.conflicts.list()).toMatchObject([
      { documentId: doc.id, winner: 'local', subject: { kind: 'status', lost: 'LODGED' } },
    ]);
    await expectInSync(h);
    await expectQuiet(h);
  });

  it('leaves a newer edit of the user alone, and pushes it', async () => {
    const h = await start();
    await h.sync();
    const doc = (await h.remote()).documents[0]!;
    const folder = h.documentFolder(doc.id)!;
    statusPushLeftInDoubt(h, doc);
    // After the crash, before the restart, the user changed their mind.
    h.editMeta(folder, (m) => ({ ...m, status: 'lodged' }), Date.now() + 60_000);

    await h.sync();

    expect((await h.remoteDoc(doc.id))!.status?.type).toBe('LODGED');
    await expectInSync(h);
    await expectQuiet(h);
  });
});
