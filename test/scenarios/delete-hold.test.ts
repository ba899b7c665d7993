/**
 * The daemon's judgement of local deletions over time (issue 25, case 5), one entity's sync at a
 * time as the daemon runs them, on a clock the test moves: a removed folder waits its hold time,
 * the deletes that fall due are judged with every other one in its hold in the store, a rail
 * that held makes every later delete wait for a person until its window ends, and a held delete
 * goes only when a person approves it. The real engine, folder, state and simulator.
 */
import { renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OwnerRef } from '../../src/domain/types.js';
import { DeleteWindow } from '../../src/engine/delete-window.js';
import { runCycle } from '../../src/engine/run-cycle.js';
import {
  chooseHeldDeletes,
  type Decided,
  decideEachEntity,
} from '../../src/operator/held-deletes.js';
import { type OperatorDeps, rightAway } from '../../src/operator/operator-deps.js';
import { type SyncHarness, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

const HOLD_MS = 60_000;
const WINDOW_MS = 600_000;

/** Three companies of four documents; at most three deletes per side before a rail holds. */
async function firm() {
  const h = await start({
    seed: { companies: 3, trusts: 0, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 3 },
    settings: { maxDeleteCount: 3, maxDeletePercent: 100 },
  });
  expect((await h.sync()).result).toBe('ok');
  const docs = (await h.remote()).documents;
  const owners = await h.owners();
  const docsOf = (owner: OwnerRef) =>
    docs.filter((d) => d.owner.kind === owner.kind && String(d.owner.id) === owner.id);
  let now = Date.now();
  const window = new DeleteWindow(() => WINDOW_MS, HOLD_MS);
  const deps = { ...h.deps, now: () => now };
  /** One entity's sync as the daemon runs it, `ms` after the last. */
  const syncEntity = (owner: OwnerRef, ms = 0) => {
    now += ms;
    return runCycle(deps, {
      trigger: 'watcher',
      owners: [owner],
      fullReconcile: false,
      honourBackoff: true,
      deleteWindow: window,
    });
  };
  const inService = async () => new Set((await h.remote()).documents.map((d) => d.id));
  const removeFolders = (h: SyncHarness, ids: readonly string[]) => {
    for (const id of ids) h.remove(h.documentFolder(id)!);
  };
  return {
    h,
    owners,
    docsOf,
    syncEntity,
    inService,
    removeFolders: (ids: string[]) => removeFolders(h, ids),
  };
}

describe('the daemon: a removed folder waits its hold time, and a burst is judged whole', () => {
  it('deletes falling due in different entities are judged together, and all held', async () => {
    const f = await firm();
    const [a, b] = f.owners as [OwnerRef, OwnerRef];
    const gone = [...f.docsOf(a).slice(0, 2), ...f.docsOf(b).slice(0, 2)].map((d) => d.id);
    f.removeFolders(gone);

    // Each entity alone deletes 2, under the limit of 3: both wait their hold.
    await f.syncEntity(a);
    await f.syncEntity(b, 1000);
    const waiting = f.h.state.heldDeletes.list();
    expect(waiting.map((r) => r.documentId).sort()).toEqual([...gone].sort());
    expect(waiting.every((r) => r.dueAt !== null && r.decision === null)).toBe(true);
    expect(f.h.state.heldDeletes.tally()).toMatchObject({ waiting: 0, inHold: 4 });

    // a's hold ends first: its 2 are judged with b's 2, still in their hold: 4 > 3.
    const report = await f.syncEntity(a, HOLD_MS);
    expect(report.tripped.map((t) => t.rail)).toEqual(['delete-count']);
    expect(report.tripped[0]!.message).toContain('4 held, none of them deleted');
    const held = f.h.state.heldDeletes.list();
    expect(held).toHaveLength(4);
    expect(held.every((r) => r.dueAt === null)).toBe(true);
    expect(f.h.state.heldDeletes.tally()).toMatchObject({ waiting: 4, inHold: 0 });

    // b's turn changes nothing: a held delete waits for a person.
    await f.syncEntity(b, 1000);
    for (const id of gone) expect(await f.inService()).toContain(id);

    // A person approves: the next syncs carry them out.
    const operator = {
      state: f.h.state,
      local: Object.assign(f.h.deps.local, { root: f.h.root }),
      webUrl: f.h.sim.webUrl,
      onRemoteDelete: 'trash' as const,
      now: Date.now,
      locks: f.h.deps.locks,
    };
    const approved = await approve(operator, 'all');
    expect(approved.held).toHaveLength(4);
    await f.syncEntity(a);
    await f.syncEntity(b);
    const left = await f.inService();
    for (const id of gone) expect(left.has(id)).toBe(false);
    expect(f.h.state.heldDeletes.list()).toEqual([]);
  });

  it('deletes under the limits go once their hold ended, counted in the window', async () => {
    const f = await firm();
    const [a, b] = f.owners as [OwnerRef, OwnerRef];
    const [first] = f.docsOf(a).map((d) => d.id);
    f.removeFolders([first!]);
    await f.syncEntity(a);
    expect(await f.inService()).toContain(first);
    await f.syncEntity(a, HOLD_MS - 1);
    expect(await f.inService()).toContain(first);
    await f.syncEntity(a, 1);
    expect(await f.inService()).not.toContain(first);
    expect(f.h.state.heldDeletes.list()).toEqual([]);

    // 1 let through within the window + 3 now > 3: these are held, the first stays done.
    const later = f
      .docsOf(b)
      .slice(0, 3)
      .map((d) => d.id);
    f.removeFolders(later);
    await f.syncEntity(b);
    const report = await f.syncEntity(b, HOLD_MS);
    expect(report.tripped[0]!.message).toContain(
      '1 of them deleted already within the window, the other 3 held',
    );
    for (const id of later) expect(await f.inService()).toContain(id);
  });

  it('once a rail held, a later delete waits for a person until the window ends; after it, it is judged afresh', async () => {
    const f = await firm();
    const [a, b, c] = f.owners as [OwnerRef, OwnerRef, OwnerRef];
    f.removeFolders(f.docsOf(a).map((d) => d.id)); // 4 > 3: held
    await f.syncEntity(a);
    expect((await f.syncEntity(a, HOLD_MS)).tripped.map((t) => t.rail)).toEqual(['delete-count']);

    const [next] = f.docsOf(b).map((d) => d.id);
    f.removeFolders([next!]);
    await f.syncEntity(b, 1000);
    const report = await f.syncEntity(b, HOLD_MS);
    expect(report.tripped.map((t) => t.rail)).toEqual(['delete-rail-held']);
    expect(await f.inService()).toContain(next);
    expect(f.h.state.heldDeletes.list().find((r) => r.documentId === next)).toMatchObject({
      dueAt: null,
      decision: null,
    });

    // The window since the rail held has passed: a new removal is judged on its own.
    const [last] = f.docsOf(c).map((d) => d.id);
    f.removeFolders([last!]);
    await f.syncEntity(c, WINDOW_MS);
    await f.syncEntity(c, HOLD_MS);
    expect(await f.inService()).not.toContain(last);
    // The held ones still wait for a person.
    expect(await f.inService()).toContain(next);
    expect(f.h.state.heldDeletes.tally().waiting).toBe(5);
  });

  it('`approve --all` leaves a delete in its hold alone; approved by its id, it goes at once', async () => {
    const f = await firm();
    const [a] = f.owners as [OwnerRef];
    const [doc] = f.docsOf(a).map((d) => d.id);
    f.removeFolders([doc!]);
    await f.syncEntity(a);
    const operator = {
      state: f.h.state,
      local: Object.assign(f.h.deps.local, { root: f.h.root }),
      webUrl: f.h.sim.webUrl,
      onRemoteDelete: 'trash' as const,
      now: Date.now,
      locks: f.h.deps.locks,
    };
    await expect(approve(operator, 'all')).rejects.toThrow(/No held delete is waiting/);
    expect((await approve(operator, [doc!])).held).toMatchObject([
      { waitingUntil: expect.any(String) },
    ]);
    await f.syncEntity(a, 1000);
    expect(await f.inService()).not.toContain(doc);
    expect(f.h.state.heldDeletes.list()).toEqual([]);
  });

  it('a folder put back within its hold deletes nothing, and its wait is dropped', async () => {
    const f = await firm();
    const [a] = f.owners as [OwnerRef];
    const [doc] = f.docsOf(a).map((d) => d.id);
    const folder = path.join(f.h.root, f.h.documentFolder(doc!)!);
    const away = `${f.h.root}-dragged-away`;
    f.h.resetCounters();
    renameSync(folder, away);
    await f.syncEntity(a);
    expect(f.h.state.heldDeletes.list()).toHaveLength(1);
    renameSync(away, folder);
    await f.syncEntity(a, HOLD_MS);
    expect(f.h.state.heldDeletes.list()).toEqual([]);
    expect(await f.inService()).toContain(doc);
    expect(f.h.writesToService()).toEqual({});
  });

  it('a folder moved to another entity is reported, never waits to be deleted', async () => {
    const f = await firm();
    const [a, b] = f.owners as [OwnerRef, OwnerRef];
    const [doc] = f.docsOf(a).map((d) => d.id);
    const from = f.h.documentFolder(doc!)!;
    f.h.rename(from, `${f.h.entityFolder(b)}/${path.posix.basename(from)}`);
    await f.syncEntity(a);
    await f.syncEntity(a, HOLD_MS);
    expect(f.h.state.heldDeletes.list()).toEqual([]);
    expect(await f.inService()).toContain(doc);
    expect(f.h.state.problems.list().map((p) => p.reason)).toContainEqual(
      expect.stringContaining('moved to'),
    );
  });
});

/** A person's approval, as `docsync deletes approve` carries it out with no daemon running. */
async function approve(deps: OperatorDeps, selection: 'all' | string[]): Promise<Decided> {
  return decideEachEntity(deps, chooseHeldDeletes(deps, selection), 'approve', rightAway(deps));
}
