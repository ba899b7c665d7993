/**
 * The operator's changes take the entity's lease, and only the lock table makes one: a button
 * that called them without the entity's lock would not compile (the `@ts-expect-error` lines
 * below fail `npm run typecheck` if it did), and a lease that is not the entity's current one
 * (released, another entity's, another table's) is refused before anything changes, counted as
 * a violation. On a real state file and folder.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EntityNotHeldError } from '../../src/domain/errors.js';
import type { OwnerRef } from '../../src/domain/types.js';
import { type EntityLease, EntityLocks } from '../../src/engine/entity-locks.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { resolveConflict } from '../../src/operator/conflicts.js';
import { decideEachEntity } from '../../src/operator/held-deletes.js';
import {
  type ExclusiveRunner,
  type OperatorDeps,
  rightAway,
} from '../../src/operator/operator-deps.js';
import { restoreFromTrash } from '../../src/operator/trash.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const stores = useStateStore();
const tempDir = useTempDir('docsync-leases-');

function operator(): OperatorDeps {
  const state = stores.open();
  return {
    state,
    local: new FsLocalStore({ root: tempDir(), settleSeconds: 0, metaCache: state.metaFiles }),
    webUrl: 'https://app.example.com',
    onRemoteDelete: 'trash',
    now: Date.now,
    locks: new EntityLocks(),
  };
}

/** An open conflict of `owner` that closing (`keep-both`) resolves without touching a file. */
function conflictOf(deps: OperatorDeps, owner: OwnerRef): number {
  return deps.state.conflicts.record({
    owner,
    documentId: '5001',
    copyPath: 'Companies/Acme/2024-05-01 Minutes [5001]/minutes (conflict).pdf',
    winner: 'remote',
    occurredAt: Date.now(),
  });
}

function heldDeleteOf(deps: OperatorDeps, owner: OwnerRef) {
  deps.state.heldDeletes.hold(
    [
      {
        owner,
        documentId: '7001',
        side: 'remote',
        folder: 'Companies/Acme/2024-05-01 Minutes [7001]',
        documentName: 'Minutes',
        reason: 'more than safety.maxDeleteCount 0',
      },
    ],
    Date.now(),
  );
  return deps.state.heldDeletes.list();
}

describe("the operator's changes and the entity's lease", () => {
  it('take a lease only the lock table makes: without one, or with a look-alike, they do not compile', () => {
    const lookAlike = { owner: COMPANY, holder: 'a button', held: true, release: () => undefined };
    expectTypeOf(lookAlike).not.toExtend<EntityLease>();
    expectTypeOf(resolveConflict).parameter(1).toEqualTypeOf<EntityLease>();
    expectTypeOf(restoreFromTrash).parameter(1).toEqualTypeOf<EntityLease | null>();
    // Never run: what matters is that each line is a type error.
    const never = (deps: OperatorDeps) => {
      // @ts-expect-error: no lease
      void resolveConflict(deps, 1, 'keep-both');
      // @ts-expect-error: an object of a lease's shape is not one
      void resolveConflict(deps, lookAlike, 1, 'keep-both');
      // @ts-expect-error: no lease
      void restoreFromTrash(deps, '2024-05-01/Companies/Acme/minutes.pdf');
      // @ts-expect-error: a runner hands its job the lease it took
      const conjured: ExclusiveRunner = (_owner, job) => job();
      return conjured;
    };
    expect(never).toBeTypeOf('function');
  });

  it("resolve a conflict under its entity's current lease, and refuse any other, changing nothing", async () => {
    const deps = operator();
    const id = conflictOf(deps, COMPANY);
    const refused = (lease: EntityLease) => resolveConflict(deps, lease, id, 'keep-both');

    // Another entity's lease, held.
    await expect(deps.locks.run(TRUST, 'test', refused)).rejects.toThrow(
      `Refused to resolve conflict ${id} on company:c0ffee-0001 without its lock (the lease is for trust:20053); nothing was changed.`,
    );
    // The entity's lease, released already.
    const released = await deps.locks.acquire(COMPANY, 'test');
    released.release();
    await expect(refused(released)).rejects.toThrow(/its lease was released already/);
    // The entity's lease from another table (a runner that did not wait for this one's lock).
    const elsewhere = await new EntityLocks().acquire(COMPANY, 'test');
    await expect(refused(elsewhere)).rejects.toThrow(/not the one this lock table granted/);

    expect(deps.state.conflicts.get(id)?.resolution).toBeNull();
    expect(deps.locks.violations).toBe(3);

    const resolved = await rightAway(deps)(COMPANY, refused);
    expect(resolved).toMatchObject({ id, choice: 'keep-both', owner: COMPANY });
    expect(deps.state.conflicts.get(id)?.resolution).toBe('keep-both');
    expect(deps.locks.stats()).toMatchObject({ violations: 3, held: 0 });
  });

  it("decide a held delete under its entity's current lease only: a runner handing a released one decides nothing", async () => {
    const deps = operator();
    const rows = heldDeleteOf(deps, COMPANY);
    const handsReleased: ExclusiveRunner = async (owner, job) => {
      const lease = await deps.locks.acquire(owner, 'test');
      lease.release();
      return job(lease);
    };
    const wrongEntity: ExclusiveRunner = (_owner, job) => deps.locks.run(TRUST, 'test', job);

    for (const runner of [handsReleased, wrongEntity])
      await expect(decideEachEntity(deps, rows, 'approve', runner)).rejects.toBeInstanceOf(
        EntityNotHeldError,
      );
    expect(deps.state.heldDeletes.list().map((r) => r.decision)).toEqual([null]);
    expect(deps.locks.violations).toBe(2);

    const decided = await decideEachEntity(deps, rows, 'approve', rightAway(deps));
    expect(decided.owners).toEqual([COMPANY]);
    expect(deps.state.heldDeletes.list().map((r) => r.decision)).toEqual(['approve']);
  });
});
