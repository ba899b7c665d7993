/**
 * The engine's changes to the agreed state take the entity's lease, as the operator's do
 * (operator-leases.test.ts): a commit or a forget made by code that did not lock the entity
 * would not compile (the `@ts-expect-error` lines below fail `npm run typecheck` if it did), and
 * one made with a lease that is not the entity's current one is refused before anything is
 * written, counted as a violation. On a real state file.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EntityNotHeldError } from '../../src/domain/errors.js';
import { commitAgreed, forgetEntity } from '../../src/engine/commit-agreed.js';
import { type EntityLease, EntityLocks } from '../../src/engine/entity-locks.js';
import type { Failpoint } from '../../src/engine/failpoints.js';
import { baseDocument, COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';

const stores = useStateStore();

function engine(failpoint?: (step: Failpoint) => Promise<void>) {
  return {
    state: stores.open(),
    now: Date.now,
    locks: new EntityLocks(),
    ...(failpoint ? { failpoint } : {}),
  };
}

const agreed = baseDocument();
const change = { put: [agreed], cursor: { owner: TRUST, to: '2020-07-03T04:31:46' } };
const site = { owner: TRUST, documentId: agreed.id, what: 'pull-new-document' };

describe("the engine's changes to the agreed state and the entity's lease", () => {
  it('take a lease only the lock table makes: without one, or with a look-alike, they do not compile', () => {
    const lookAlike = { owner: TRUST, holder: 'sync', held: true, release: () => undefined };
    expectTypeOf(commitAgreed).parameter(1).toEqualTypeOf<EntityLease>();
    expectTypeOf(forgetEntity).parameter(1).toEqualTypeOf<EntityLease>();
    // Never run: what matters is that each line is a type error.
    const never = (deps: ReturnType<typeof engine>) => {
      // @ts-expect-error: no lease
      void commitAgreed(deps, change, site);
      // @ts-expect-error: an object of a lease's shape is not one
      void commitAgreed(deps, lookAlike, change, site);
      // @ts-expect-error: no lease
      forgetEntity(deps, TRUST);
    };
    expect(never).toBeTypeOf('function');
  });

  it("commit under the entity's current lease, and refuse any other, writing nothing", async () => {
    const deps = engine();
    const refused = (lease: EntityLease) => () => commitAgreed(deps, lease, change, site);

    // Another entity's lease, held.
    await deps.locks.run(COMPANY, 'sync', (lease) => {
      expect(refused(lease)).toThrow(
        `Refused to commit pull-new-document on trust:20053 without its lock (the lease is for company:c0ffee-0001); nothing was changed.`,
      );
    });
    // The entity's lease, released already.
    const released = await deps.locks.acquire(TRUST, 'sync');
    released.release();
    expect(refused(released)).toThrow(EntityNotHeldError);

    expect(deps.state.base.get(agreed.id)).toBeNull();
    expect(deps.state.cursors.get(TRUST)).toBeNull();
    expect(deps.locks.violations).toBe(2);

    await deps.locks.run(TRUST, 'sync', (lease) => commitAgreed(deps, lease, change, site));
    expect(deps.state.base.get(agreed.id)).toEqual(agreed);
    expect(deps.state.cursors.get(TRUST)?.cursor).toBe('2020-07-03T04:31:46');
    expect(deps.locks.stats()).toMatchObject({ violations: 2, held: 0 });
  });

  it('refuse a commit whose lease was let go while it waited at its failpoint', async () => {
    let lease: EntityLease | undefined;
    const deps = engine(async (step) => {
      if (step === 'before-commit') lease?.release();
    });
    lease = await deps.locks.acquire(TRUST, 'sync');
    await expect(commitAgreed(deps, lease, change, site)).rejects.toThrow(
      /its lease was released already/,
    );
    expect(deps.state.base.get(agreed.id)).toBeNull();
    expect(deps.locks.violations).toBe(1);
  });

  it('forget an entity under its own lease only', async () => {
    const deps = engine();
    deps.state.entities.upsert({
      entity: {
        kind: 'trust',
        id: TRUST.id,
        name: 'Smith Family Trust',
        abn: null,
        type: 'UNIT',
        raw: {},
      },
      folder: 'Trusts/Smith',
      matchedBy: 'name',
      updatedAt: 1,
    });
    await deps.locks.run(COMPANY, 'forget', async (lease) => {
      expect(() => forgetEntity(deps, lease, TRUST)).toThrow(EntityNotHeldError);
    });
    expect(deps.state.entities.get(TRUST)).not.toBeNull();
    expect(deps.locks.violations).toBe(1);

    await deps.locks.run(TRUST, 'forget', async (lease) => forgetEntity(deps, lease, TRUST));
    expect(deps.state.entities.get(TRUST)).toBeNull();
  });
});
