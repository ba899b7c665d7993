/**
 * What planning reads from the state, for a cycle's entities a batch at a time: the base and the
 * cursor in one statement each, and a hint to the local store to read its meta cache for the
 * same folders. Read one entity at a time, these were three statements per entity, each its own
 * read transaction: most of a quiet cycle's time over many entities.
 *
 * Reading ahead is safe because, within a cycle, only an entity's own execution writes its base
 * and cursor, and that starts after its planning; the in-doubt pushes are settled before the
 * first entity, and cycles never overlap. A batch is bounded so that a large firm's base is
 * never held in memory whole.
 */

import { ownerKey } from '../domain/owner-key.js';
import type { BaseDocument, OwnerRef } from '../domain/types.js';
import type { EntityRecord } from '../state/entity-repo.js';
import type { EngineDeps } from './engine-deps.js';

export const READ_AHEAD_BATCH = 64;

/** What planning one entity reads from the state. */
export interface StoredEntityState {
  readonly base: Map<string, BaseDocument>;
  /** Where its listing starts (null before its first sync). */
  readonly cursor: string | null;
}

export function readStoredState(deps: EngineDeps, owner: OwnerRef): StoredEntityState {
  return {
    base: deps.state.base.listByOwner(owner),
    cursor: deps.state.cursors.get(owner)?.cursor ?? null,
  };
}

/** Hands out each record's stored state, reading the next batch when one is not loaded yet. */
export class StateReadAhead {
  readonly #loaded = new Map<string, StoredEntityState>();
  #next = 0;

  constructor(
    private readonly deps: EngineDeps,
    private readonly records: readonly EntityRecord[],
    private readonly batch = READ_AHEAD_BATCH,
  ) {}

  /** Meant to be called in the records' order; any other order only costs more reads. */
  take(record: EntityRecord): StoredEntityState {
    const key = ownerKey(record.entity);
    if (!this.#loaded.has(key) && this.#next < this.records.length) this.#load();
    const stored = this.#loaded.get(key) ?? readStoredState(this.deps, record.entity);
    this.#loaded.delete(key);
    return stored;
  }

  #load(): void {
    const records = this.records.slice(this.#next, this.#next + this.batch);
    this.#next += records.length;
    const owners = records.map((r) => r.entity);
    const bases = this.deps.state.base.listByOwners(owners);
    const cursors = this.deps.state.cursors.getMany(owners);
    for (const owner of owners) {
      const key = ownerKey(owner);
      this.#loaded.set(key, {
        base: bases.get(key) ?? new Map(),
        cursor: cursors.get(key)?.cursor ?? null,
      });
    }
    this.deps.local.readAhead(records.flatMap((r) => (r.folder === null ? [] : [r.folder])));
  }
}
