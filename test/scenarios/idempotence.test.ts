/**
 * A cycle with nothing to do writes nothing on either side and costs exactly one document
 * listing per entity; the full reconcile of `docsync run --once` adds the company, trust and
 * status-type lists, a cron cycle (incremental, from the cursor) nothing else.
 */
import { describe, expect, it } from 'vitest';
import { READ_AHEAD_BATCH } from '../../src/engine/read-ahead.js';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { type SyncHarness, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const FIRM = {
  companies: 3,
  trusts: 2,
  documentsPerEntity: 3,
  attachmentsPerDocument: 2,
  seed: 11,
};

const listsPerEntity = (companies: number, trusts: number) => ({
  'GET /companies/{ownerId}/documents 200': companies,
  'GET /trusts/{ownerId}/documents 200': trusts,
});

async function cost(h: SyncHarness, fullReconcile: boolean) {
  h.resetCounters();
  const before = h.mtimes();
  const report = await h.sync({ fullReconcile, trigger: fullReconcile ? 'once' : 'cron' });
  expect(report).toMatchObject({ result: 'ok', actions: 0 });
  expect(h.mtimes()).toEqual(before);
  return h.requests();
}

describe('quiet cycles', () => {
  it('a full reconcile after the first sync lists companies, trusts, status types and each entity once', async () => {
    const h = await start({ seed: FIRM });
    await h.sync();
    await expectInSync(h);

    expect(await cost(h, true)).toEqual({
      'GET /documents/statusTypes 200': 1,
      'GET /companies 200': 1,
      'GET /trusts 200': 1,
      ...listsPerEntity(3, 2),
    });
  });

  it('a cron cycle lists each entity once and nothing else', async () => {
    const h = await start({ seed: FIRM });
    await h.sync();

    expect(await cost(h, false)).toEqual(listsPerEntity(3, 2));
  });

  it('after pushes and pulls on both sides, the next cycles are quiet, full or incremental', async () => {
    const h = await start({ seed: FIRM });
    await h.sync();
    const [company, , , trust] = await h.owners();
    const dump = await h.remote();
    const companyDoc = dump.documents.find((d) => d.owner.id === company!.id)!;
    const trustDoc = dump.documents.find((d) => d.owner.id === trust!.id)!;
    const folder = h.documentFolder(companyDoc.id)!;
    h.write(`${folder}/added.txt`, 'added');
    h.editMeta(folder, (m) => ({ ...m, status: 'lodged' }));
    h.write(`${h.entityFolder(trust!)}/New Folder/scan.pdf`, 'scan');
    h.sim.admin.addAttachment(trustDoc.id, { name: 'from service.pdf', bytes: 'service' });
    h.sim.admin.assignStatus(trustDoc.id, { typeId: 3 });
    await h.sync({ trigger: 'cron', fullReconcile: false });
    await expectInSync(h);

    expect(await cost(h, false)).toEqual(listsPerEntity(3, 2));
    await expectQuiet(h);
  });

  it('a firm larger than one read-ahead batch: changes in every batch are seen, then quiet', async () => {
    const firm = { companies: 40, trusts: 30, documentsPerEntity: 1, attachmentsPerDocument: 1 };
    expect(firm.companies + firm.trusts).toBeGreaterThan(READ_AHEAD_BATCH);
    const h = await start({ seed: { ...firm, seed: 4 } });
    await h.sync();
    const owners = await h.owners();
    const dump = await h.remote();
    // The first entity of the first batch, the last of the first, and the last of the second.
    const changed = [owners[0]!, owners[READ_AHEAD_BATCH - 1]!, owners.at(-1)!].map(
      (owner) => dump.documents.find((d) => d.owner.id === owner.id)!.id,
    );
    for (const id of changed) {
      h.write(`${h.documentFolder(id)}/added.txt`, `added to ${id}`);
      h.sim.admin.assignStatus(id, { typeId: 3 });
    }
    await h.sync({ trigger: 'cron', fullReconcile: false });
    await expectInSync(h);
    for (const id of changed) {
      const doc = await h.remoteDoc(id);
      expect(String(doc?.status.typeId)).toBe('3');
      expect(doc?.attachments.map((a) => a.name)).toContain('added.txt');
    }

    expect(await cost(h, false)).toEqual(listsPerEntity(40, 30));
  });
});
