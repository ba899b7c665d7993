/**
 * One lock per entity, the single owner of "no entity is ever in two pieces of work at once".
 * Everything that reads or changes an entity's folder, its base rows or its cursor
 * takes the entity's lock first: a sync (`runCycle` takes it for each entity it works on, from
 * the settling of its pushes in doubt to its cursor), an operator's decision (the status page,
 * the CLI through the daemon), forgetting an entity, the folder scans. The scheduler only
 * decides what to start; it asks this table whether an entity is busy.
 *
 * The lock is a FIFO queue per entity: a holder that waits gets it in the order it asked, so a
 * person's decision asked for during a sync runs before a sync asked for after it. Only one
 * holder at a time ever holds several locks (a cycle over every entity, which takes each as it
 * reaches it); every other holder takes one lock at a time, so no two holders wait on each other.
 *
 * A lease comes only from this table (`EntityLease`), so a function that takes one cannot be
 * called by code that did not lock. Violations are counted where the lock is taken and checked:
 * the engine's per-entity steps call `check(owner, lease, step)`, which counts (and logs) a step
 * done without the entity's current lease, and a grant to a second holder while another holds
 * it would count too; the operator's changes call `assertHeld`, which also refuses the change.
 * Tests and the simulation read `violations` (and `stats()`); it stays 0 unless the invariant
 * broke.
 */
import { EntityNotHeldError } from '../domain/errors.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';

export interface LockViolation {
  readonly owner: string;
  readonly step: string;
  readonly holder: string | null;
  readonly at: number;
}

export interface EntityLockStats {
  /** Leases granted since the start. */
  readonly grants: number;
  /** Steps done without the entity's lease, or grants while another held it: 0 unless broken. */
  readonly violations: number;
  /** Entities whose lock is held now. */
  readonly held: number;
  /** Holders waiting for a lock now. */
  readonly waiting: number;
}

interface Slot {
  current: EntityLease | null;
  readonly queue: { readonly holder: string; readonly grant: (lease: EntityLease) => void }[];
}

/**
 * Proof of holding an entity's lock, handed to the work done under it. Only this table makes one:
 * the class is exported as a type alone, and its private field makes it nominal, so an object
 * of the same shape is not one. Work that takes a lease cannot be called outside the lock by
 * mistake: the caller has to have asked this table for it.
 */
class EntityLease {
  #held = true;
  constructor(
    readonly owner: OwnerRef,
    /** Who holds it, in words: `sync`, `status page`, `operator decision 4`, `forget`. */
    readonly holder: string,
    private readonly onRelease: (lease: EntityLease) => void,
  ) {}

  /** False once released: a step made with a released lease is a violation. */
  get held(): boolean {
    return this.#held;
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.onRelease(this);
  }
}

export type { EntityLease };

/** How many violations are kept in detail; the count goes on. */
const KEPT_VIOLATIONS = 50;

export class EntityLocks {
  readonly #slots = new Map<string, Slot>();
  readonly #freed = new Set<(key: string) => void>();
  readonly #idle = new Set<() => void>();
  #grants = 0;
  #violations = 0;
  readonly #violationLog: LockViolation[] = [];

  /**
   * @param onViolation hears each violation as it is counted (the daemon logs it at error).
   * @param now the clock stamped on a violation.
   */
  constructor(
    private readonly onViolation: (violation: LockViolation) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Waits for the entity's lock, in the order asked; release the lease when done. */
  acquire(owner: OwnerRef, holder: string): Promise<EntityLease> {
    const key = ownerKey(owner);
    const slot = this.#slot(key);
    if (slot.current === null && slot.queue.length === 0)
      return Promise.resolve(this.#grant(key, owner, holder));
    return new Promise((resolve) => slot.queue.push({ holder, grant: (lease) => resolve(lease) }));
  }

  /** The lease now, or null when the entity is busy (held or waited for): never waits. */
  tryAcquire(owner: OwnerRef, holder: string): EntityLease | null {
    const key = ownerKey(owner);
    const slot = this.#slots.get(key);
    if (slot && (slot.current !== null || slot.queue.length > 0)) return null;
    return this.#grant(key, owner, holder);
  }

  /** Runs `job` holding the entity's lock, and releases it however the job ends. */
  async run<T>(owner: OwnerRef, holder: string, job: (lease: EntityLease) => Promise<T> | T) {
    const lease = await this.acquire(owner, holder);
    try {
      return await job(lease);
    } finally {
      lease.release();
    }
  }

  /** Runs `job` with the lock if it is free now; null, without running it, when busy. */
  async runIfFree<T>(
    owner: OwnerRef,
    holder: string,
    job: (lease: EntityLease) => Promise<T> | T,
  ): Promise<T | null> {
    const lease = this.tryAcquire(owner, holder);
    if (lease === null) return null;
    try {
      return await job(lease);
    } finally {
      lease.release();
    }
  }

  /**
   * The engine's per-entity steps call this: true when `lease` is the entity's current lease.
   * Otherwise the step runs without the lock: counted as a violation, and false.
   */
  check(owner: OwnerRef, lease: EntityLease | null | undefined, step: string): boolean {
    const key = ownerKey(owner);
    const current = this.#slots.get(key)?.current ?? null;
    if (lease?.held && current === lease && ownerKey(lease.owner) === key) return true;
    this.#violate({ owner: key, step, holder: current?.holder ?? null, at: this.now() });
    return false;
  }

  /**
   * For work that must not go on without the lock (an operator's change to the folder or the
   * state): as `check`, and when the lease is not the entity's current one, the violation is
   * counted and EntityNotHeldError thrown before anything is changed.
   */
  assertHeld(owner: OwnerRef, lease: EntityLease | null, step: string): void {
    if (this.check(owner, lease, step)) return;
    const key = ownerKey(owner);
    const reason = !lease
      ? 'no lease was handed in'
      : !lease.held
        ? 'its lease was released already'
        : ownerKey(lease.owner) !== key
          ? `the lease is for ${ownerKey(lease.owner)}`
          : 'the lease is not the one this lock table granted';
    throw new EntityNotHeldError(key, step, reason);
  }

  /** Whether anything holds or waits for the entity's lock (the scheduler starts no sync then). */
  isBusy(owner: OwnerRef | string): boolean {
    const slot = this.#slots.get(typeof owner === 'string' ? owner : ownerKey(owner));
    return slot !== undefined && (slot.current !== null || slot.queue.length > 0);
  }

  /** Who holds the entity's lock now, or null. */
  holderOf(owner: OwnerRef): string | null {
    return this.#slots.get(ownerKey(owner))?.current?.holder ?? null;
  }

  /** Hears the key of each entity whose lock becomes free (nobody holds or waits for it). */
  onFree(listener: (key: string) => void): () => void {
    this.#freed.add(listener);
    return () => this.#freed.delete(listener);
  }

  /** Resolves when no lock is held or waited for (the daemon's close waits for it). */
  idle(): Promise<void> {
    if (this.#slots.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.add(resolve));
  }

  get violations(): number {
    return this.#violations;
  }

  /** The first violations in detail (the count in `violations` goes on past them). */
  violationLog(): readonly LockViolation[] {
    return [...this.#violationLog];
  }

  stats(): EntityLockStats {
    let held = 0;
    let waiting = 0;
    for (const slot of this.#slots.values()) {
      if (slot.current) held++;
      waiting += slot.queue.length;
    }
    return { grants: this.#grants, violations: this.#violations, held, waiting };
  }

  #slot(key: string): Slot {
    let slot = this.#slots.get(key);
    if (!slot) {
      slot = { current: null, queue: [] };
      this.#slots.set(key, slot);
    }
    return slot;
  }

  #grant(key: string, owner: OwnerRef, holder: string): EntityLease {
    const slot = this.#slot(key);
    if (slot.current !== null)
      this.#violate({
        owner: key,
        step: `grant to ${holder}`,
        holder: slot.current.holder,
        at: this.now(),
      });
    const lease = new EntityLease(owner, holder, (released) => this.#released(key, released));
    slot.current = lease;
    this.#grants++;
    return lease;
  }

  #released(key: string, lease: EntityLease): void {
    const slot = this.#slots.get(key);
    if (!slot || slot.current !== lease) return;
    slot.current = null;
    const next = slot.queue.shift();
    if (next) {
      next.grant(this.#grant(key, lease.owner, next.holder));
      return;
    }
    this.#slots.delete(key);
    for (const listener of this.#freed) listener(key);
    if (this.#slots.size === 0) {
      for (const resolve of this.#idle) resolve();
      this.#idle.clear();
    }
  }

  #violate(violation: LockViolation): void {
    this.#violations++;
    if (this.#violationLog.length < KEPT_VIOLATIONS) this.#violationLog.push(violation);
    this.onViolation(violation);
  }
}
