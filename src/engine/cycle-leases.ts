/**
 * The entity locks one cycle holds (entity-locks.ts). A cycle takes an entity's lock as it
 * reaches the entity (a cycle of some entities: all of theirs before it starts, in key order) and
 * keeps it to the end, when the cursors move: from the settling of pushes in doubt to the cursor,
 * nothing else works on that entity.
 */
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { EntityLease, EntityLocks } from './entity-locks.js';

export class CycleLeases {
  readonly #held = new Map<string, Promise<EntityLease>>();
  /** The leases granted so far, to release without waiting. */
  readonly #granted = new Map<string, EntityLease>();

  constructor(
    private readonly locks: EntityLocks,
    private readonly holder: string,
  ) {}

  /** The entity's lease: taken now (waiting for whoever holds it), or the one already held. */
  hold(owner: OwnerRef): Promise<EntityLease> {
    const key = ownerKey(owner);
    let lease = this.#held.get(key);
    if (!lease) {
      lease = this.locks.acquire(owner, this.holder).then((granted) => {
        this.#granted.set(key, granted);
        return granted;
      });
      this.#held.set(key, lease);
    }
    return lease;
  }

  /** Takes the locks of several entities one after the other, in key order. */
  async holdAll(owners: readonly OwnerRef[]): Promise<void> {
    const sorted = [...owners].sort((a, b) => (ownerKey(a) < ownerKey(b) ? -1 : 1));
    for (const owner of sorted) await this.hold(owner);
  }

  /** The cycle is over: every lock it took goes back. */
  releaseAll(): void {
    for (const [key, lease] of this.#held) {
      const granted = this.#granted.get(key);
      if (granted) granted.release();
      else void lease.then((l) => l.release());
    }
    this.#held.clear();
    this.#granted.clear();
  }
}
