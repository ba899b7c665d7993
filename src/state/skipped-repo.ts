/**
 * Entries of the folder that are not synced (a link, a special file, a name the service cannot
 * store) as the last scan found them, for `docsync status` and the status page ("Not synced").
 * Replaced whole per entity after each scan; `first_seen_at` survives while an entry stays, so
 * the operator sees how long it has waited.
 *
 * Entries beside the entity folders (a link at `Companies/Acme`) belong to no entity: they are
 * kept under the kind of their top folder with an empty owner id, and listed with owner null.
 */

import { isNoteOnly } from '../domain/folder-notes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerKind, OwnerRef, SkippedEntry } from '../domain/types.js';
import { ENTITY_ROOTS } from '../local/local-store.js';
import type { Database } from './open-database.js';
import type { OwnerColumns } from './row-helpers.js';

export interface SkippedRecord {
  /** The entity whose folder holds it; null for an entry beside the entity folders. */
  readonly owner: OwnerRef | null;
  readonly path: string;
  readonly reason: string;
  readonly firstSeenAt: number;
  readonly lastSeenAt: number;
}

interface SkippedRow extends OwnerColumns {
  path: string;
  reason: string;
  first_seen_at: number;
  last_seen_at: number;
}

/** The owner id of entries that belong to no entity. */
const NO_ENTITY = '';

export class SkippedRepo {
  readonly #db: Database;
  readonly #forOwner;
  readonly #deleteOwner;
  readonly #insert;
  readonly #list;
  readonly #reasons;
  readonly #replace;
  /**
   * Owners (ownerKey) that have rows, read once. A scan that skips nothing, the usual case, then
   * costs no statement: a write per entity and cycle was the price otherwise. Only the daemon
   * writes this table (it holds the instance lock), so the set stays true.
   */
  #withRows: Set<string> | null = null;

  constructor(db: Database) {
    this.#db = db;
    this.#forOwner = db.prepare<[OwnerKind, string], SkippedRow>(
      'SELECT * FROM skipped_entries WHERE owner_kind = ? AND owner_id = ?',
    );
    this.#deleteOwner = db.prepare(
      'DELETE FROM skipped_entries WHERE owner_kind = ? AND owner_id = ?',
    );
    this.#insert = db.prepare('INSERT OR REPLACE INTO skipped_entries VALUES (?, ?, ?, ?, ?, ?)');
    this.#list = db.prepare<[], SkippedRow>(
      'SELECT * FROM skipped_entries ORDER BY owner_kind, owner_id, path',
    );
    this.#reasons = db.prepare<[], string>('SELECT reason FROM skipped_entries').pluck();
    this.#replace = db.transaction(
      (owner: OwnerRef, entries: readonly SkippedEntry[], now: number): SkippedEntry[] => {
        const firstSeen = new Map(
          this.#forOwner.all(owner.kind, owner.id).map((r) => [r.path, r.first_seen_at]),
        );
        this.#deleteOwner.run(owner.kind, owner.id);
        for (const e of entries) {
          const first = firstSeen.get(e.path) ?? now;
          this.#insert.run(owner.kind, owner.id, e.path, e.reason, first, now);
        }
        return entries.filter((e) => !firstSeen.has(e.path));
      },
    );
  }

  /**
   * What the last scan of `owner`'s folder skipped replaces what was kept for it. Returns the
   * entries not kept before (newly seen), for a warning in the log.
   */
  replaceForOwner(
    owner: OwnerRef,
    entries: readonly SkippedEntry[],
    now: number = Date.now(),
  ): SkippedEntry[] {
    const owners = this.#owners();
    const key = ownerKey(owner);
    if (entries.length === 0 && !owners.has(key)) return [];
    const added = this.#replace.immediate(owner, entries, now);
    if (entries.length > 0) owners.add(key);
    else owners.delete(key);
    return added;
  }

  /**
   * Like replaceForOwner, for the entries beside the entity folders (no entity's): those under
   * `Trusts/` are kept as the trusts', the rest (under `Companies/`, and at the root, which has
   * no kind) as the companies'.
   */
  replaceEntityFolders(entries: readonly SkippedEntry[], now: number = Date.now()): SkippedEntry[] {
    const added: SkippedEntry[] = [];
    const trusts = ENTITY_ROOTS.trust;
    const isTrusts = (e: SkippedEntry) => e.path === trusts || e.path.startsWith(`${trusts}/`);
    for (const kind of Object.keys(ENTITY_ROOTS) as OwnerKind[]) {
      const under = entries.filter((e) => isTrusts(e) === (kind === 'trust'));
      added.push(...this.replaceForOwner({ kind, id: NO_ENTITY }, under, now));
    }
    return added;
  }

  /** What is kept for `owner`'s folder; no statement when it has nothing (the usual case). */
  listForOwner(owner: OwnerRef): SkippedEntry[] {
    if (!this.#owners().has(ownerKey(owner))) return [];
    return this.#forOwner
      .all(owner.kind, owner.id)
      .map((r) => ({ path: r.path, reason: r.reason }));
  }

  /**
   * One entry added to what is kept for `owner`, the rest left as it is: something seen between
   * its scans (a renamed entity folder, found when the companies are read again).
   */
  note(owner: OwnerRef, entry: SkippedEntry, now: number = Date.now()): void {
    const kept = this.listForOwner(owner).filter((e) => e.path !== entry.path);
    this.replaceForOwner(owner, [...kept, entry], now);
  }

  /** The entity is gone: what was kept for its folder goes too. */
  clearOwner(owner: OwnerRef): void {
    this.replaceForOwner(owner, []);
  }

  /** Entries that wait for a person: every one but the notes (domain/folder-notes.ts). */
  countToActOn(): number {
    return this.#reasons.all().filter((reason) => !isNoteOnly(reason)).length;
  }

  list(): SkippedRecord[] {
    return this.#list.all().map((row) => ({
      owner: row.owner_id === NO_ENTITY ? null : { kind: row.owner_kind, id: row.owner_id },
      path: row.path,
      reason: row.reason,
      firstSeenAt: row.first_seen_at,
      lastSeenAt: row.last_seen_at,
    }));
  }

  #owners(): Set<string> {
    this.#withRows ??= new Set(
      this.#db
        .prepare<[], OwnerColumns>('SELECT DISTINCT owner_kind, owner_id FROM skipped_entries')
        .all()
        .map((row) => ownerKey({ kind: row.owner_kind, id: row.owner_id })),
    );
    return this.#withRows;
  }
}
