/**
 * The engine reads the base and cursors of a cycle's entities a batch at a time
 * (src/engine/read-ahead.ts): each entity gets exactly what reading it alone gives, in any
 * order, and the local store is told of each batch's folders once.
 */
import { describe, expect, it } from 'vitest';
import type { EngineDeps } from '../../src/engine/engine-deps.js';
import { readStoredState, StateReadAhead } from '../../src/engine/read-ahead.js';
import type { LocalStore } from '../../src/local/local-store.js';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const FIRM = { companies: 3, trusts: 2, documentsPerEntity: 2, attachmentsPerDocument: 1, seed: 3 };

async function syncedFirm() {
  const h = await start({ seed: FIRM });
  await h.sync();
  const records = h.state.entities.list();
  const hinted: string[][] = [];
  const local: LocalStore = Object.create(h.deps.local, {
    readAhead: { value: (folders: readonly string[]) => hinted.push([...folders]) },
  });
  const deps: EngineDeps = { ...h.deps, local };
  return { h, deps, records, hinted };
}

describe('reading the state ahead', () => {
  it('gives each entity what reading it alone gives, in batches, telling the store each batch', async () => {
    const { deps, records, hinted } = await syncedFirm();
    expect(records).toHaveLength(5);
    const alone = records.map((r) => readStoredState(deps, r.entity));
    expect(alone.every((s) => s.base.size === 2 && s.cursor !== null)).toBe(true);

    const ahead = new StateReadAhead(deps, records, 2);
    expect(records.map((r) => ahead.take(r))).toEqual(alone);
    expect(hinted).toEqual([
      [records[0]!.folder, records[1]!.folder],
      [records[2]!.folder, records[3]!.folder],
      [records[4]!.folder],
    ]);
  });

  it('still answers right when asked out of order, or twice', async () => {
    const { deps, records } = await syncedFirm();
    const ahead = new StateReadAhead(deps, records, 2);
    const order = [records[3]!, records[0]!, records[4]!, records[1]!, records[2]!, records[0]!];
    for (const record of order)
      expect(ahead.take(record)).toEqual(readStoredState(deps, record.entity));
  });

  it('reads each entity’s state as it is when its batch is read, after earlier writes', async () => {
    const { h, deps, records } = await syncedFirm();
    const ahead = new StateReadAhead(deps, records, 2);
    ahead.take(records[0]!);
    // The third entity's batch is not read yet: a change to its state before then is seen.
    const [doc] = h.state.base.listByOwner(records[2]!.entity).values();
    h.state.base.remove(doc!.id);
    ahead.take(records[1]!);
    expect(ahead.take(records[2]!).base.has(doc!.id)).toBe(false);
  });
});
