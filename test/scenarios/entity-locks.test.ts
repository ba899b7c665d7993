/**
 * Issue 25 in the engine: a cycle holds each entity's lock while it works on it (counted by the
 * lock table), and a deletion a webhook announced is kept until a sync of its entity (any sync)
 * settles it.
 */
import { describe, expect, it } from 'vitest';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

async function synced() {
  const h = await start();
  const [company, trust] = await h.owners();
  const doc = h.sim.admin.createDocument({ owner: company!, name: 'Board Minutes' });
  const id = String(doc.id);
  h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'minutes' });
  expect((await h.sync()).result).toBe('ok');
  return { h, company: company!, trust: trust!, id, folder: h.documentFolder(id)! };
}

describe('the entity lock in a cycle', () => {
  it('is held by the sync of an entity: a decision asked for meanwhile waits for its end', async () => {
    const { h, company } = await synced();
    const { locks } = h.deps;
    const granted = locks.stats().grants;
    const syncedAt = () => h.state.cursors.get(company)?.lastSuccessAt;
    const before = syncedAt();
    let ended = false;
    const sync = h.sync({ owners: [company] }).then(() => {
      ended = true;
    });
    // Asked while the sync runs: once it has taken the lock, before it has ended.
    while (locks.holderOf(company) === null && !ended)
      await new Promise((resolve) => setImmediate(resolve));
    expect(locks.holderOf(company)).toBe('sync (once)');
    // The decision runs once the sync is done with the entity: its cursor has moved.
    const seen = await locks.run(company, 'operator', () => syncedAt());
    await sync;
    expect(seen).not.toBe(before);
    expect(seen).toBe(syncedAt());
    expect(locks.stats()).toMatchObject({ violations: 0, held: 0, waiting: 0 });
    expect(locks.stats().grants).toBe(granted + 2);
  });

  it('a cycle over every entity takes each one and gives every lock back', async () => {
    const { h, company, trust } = await synced();
    const before = h.deps.locks.stats().grants;
    await h.sync();
    expect(h.deps.locks.stats()).toMatchObject({ violations: 0, held: 0, grants: before + 2 });
    expect(h.deps.locks.isBusy(company) || h.deps.locks.isBusy(trust)).toBe(false);
  });
});

describe('a deletion a webhook announced', () => {
  it('is applied by the next sync of its entity, even one that lists only changes', async () => {
    const { h, company, id, folder } = await synced();
    h.sim.admin.deleteDocument(id);
    h.state.announcedDeletions.add(company, [id], 'evt-1', Date.now());

    const report = await h.sync({ owners: [company], fullReconcile: false, trigger: 'cron' });

    expect(report.result).toBe('ok');
    expect(h.exists(folder)).toBe(false);
    expect([...h.trash().values()]).toContain(sha256('minutes'));
    expect(h.state.announcedDeletions.forOwner(company)).toEqual([]);
  });

  it('that the service denies (the document is there) is dropped, and nothing is deleted', async () => {
    const { h, company, id, folder } = await synced();
    h.state.announcedDeletions.add(company, [id], 'false-alarm', Date.now());

    await h.sync({ owners: [company], fullReconcile: false, trigger: 'cron' });

    expect(h.exists(`${folder}/minutes.pdf`)).toBe(true);
    expect(h.state.announcedDeletions.forOwner(company)).toEqual([]);
  });

  it('is kept while the service cannot be asked, and applied once it can', async () => {
    const { h, company, id, folder } = await synced();
    h.sim.admin.deleteDocument(id);
    h.state.announcedDeletions.add(company, [id], 'evt-2', Date.now());
    h.sim.admin.setFaults({ routes: { '/companies/{ownerId}/documents/{documentId}': 503 } });

    await h.sync({ owners: [company], fullReconcile: false, trigger: 'cron' }).catch(() => null);

    expect(h.exists(folder)).toBe(true);
    expect(h.state.announcedDeletions.forOwner(company)).toEqual([id]);
    h.sim.admin.setFaults({});
    await h.sync({ owners: [company], fullReconcile: false, trigger: 'cron' });
    expect(h.exists(folder)).toBe(false);
    expect(h.state.announcedDeletions.forOwner(company)).toEqual([]);
  });
});
