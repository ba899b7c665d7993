/**
 * Items in error: a document (by id) or a path (a new folder, a file) that failed, why, and when
 * it may be tried again. One bad document must never stall the rest: a failure is recorded with
 * a backoff (`ITEM_BACKOFF`, domain/backoff.ts) and the fingerprint of what was planned, and the engine skips
 * the item until the backoff ends or the plan changes, while every other item goes ahead. A
 * condition the planner finds again every cycle (an unreadable `.document.json`, a moved
 * folder) is recorded without backoff: it is reported, never waited out. `clear` once the item
 * succeeds, `clearKeys` once it is no longer a problem at all.
 */

import { backoff, ITEM_BACKOFF } from '../domain/backoff.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf } from './row-helpers.js';

/** A document id when there is one; otherwise the path (relative to the root) of what failed. */
export type ProblemItem =
  | { readonly owner: OwnerRef; readonly documentId: string; readonly path?: string | null }
  | { readonly owner: OwnerRef; readonly documentId?: null; readonly path: string };

export interface Problem {
  readonly key: string;
  readonly owner: OwnerRef;
  readonly documentId: string | null;
  readonly path: string | null;
  readonly reason: string;
  readonly attempts: number;
  readonly firstSeenAt: number;
  readonly lastSeenAt: number;
  readonly nextAttemptAt: number;
  /** What was planned when it failed; null for a condition recorded without backoff. */
  readonly planFingerprint: string | null;
}

export interface RecordOptions {
  /** Wait `backoff(attempts, ITEM_BACKOFF)` before trying the item again, unless its plan changes. */
  readonly backoff: boolean;
  readonly planFingerprint?: string | null;
}

interface ProblemRow extends OwnerColumns {
  item_key: string;
  document_id: string | null;
  path: string | null;
  reason: string;
  attempts: number;
  first_seen_at: number;
  last_seen_at: number;
  next_attempt_at: number;
  plan_fingerprint: string | null;
}

/** Stable key: documents by id (they may move), other items by owner and path. */
export function problemKey(item: ProblemItem): string {
  return item.documentId
    ? `document:${item.documentId}`
    : `path:${ownerKey(item.owner)}:${item.path}`;
}

export class ProblemRepo {
  readonly #get;
  readonly #upsert;
  readonly #clear;
  readonly #list;
  readonly #count;
  readonly #record;
  readonly #clearOwner;
  readonly #clearKeys;

  constructor(db: Database) {
    this.#get = db.prepare<[string], ProblemRow>('SELECT * FROM problems WHERE item_key = ?');
    this.#upsert = db.prepare(
      `INSERT OR REPLACE INTO problems (item_key, owner_kind, owner_id, document_id, path, reason,
         attempts, first_seen_at, last_seen_at, next_attempt_at, plan_fingerprint)
       VALUES (@key, @ownerKind, @ownerId, @documentId, @path, @reason, @attempts, @firstSeenAt,
         @lastSeenAt, @nextAttemptAt, @planFingerprint)`,
    );
    this.#clear = db.prepare('DELETE FROM problems WHERE item_key = ?');
    this.#list = db.prepare<[number], ProblemRow>(
      'SELECT * FROM problems ORDER BY first_seen_at LIMIT ?',
    );
    this.#count = db.prepare<[], number>('SELECT count(*) FROM problems').pluck();
    this.#clearOwner = db.prepare('DELETE FROM problems WHERE owner_kind = ? AND owner_id = ?');
    const clearOne = this.#clear;
    this.#clearKeys = db.transaction((keys: readonly string[]) => {
      let cleared = 0;
      for (const key of keys) cleared += clearOne.run(key).changes;
      return cleared;
    });
    this.#record = db.transaction(
      (item: ProblemItem, reason: string, now: number, options: RecordOptions): Problem => {
        const key = problemKey(item);
        const previous = this.#get.get(key);
        const attempts = (previous?.attempts ?? 0) + 1;
        const problem: Problem = {
          key,
          owner: item.owner,
          documentId: item.documentId ?? null,
          path: item.path ?? null,
          reason,
          attempts,
          firstSeenAt: previous?.first_seen_at ?? now,
          lastSeenAt: now,
          nextAttemptAt: options.backoff ? now + backoff(attempts, ITEM_BACKOFF) : now,
          planFingerprint: options.planFingerprint ?? null,
        };
        this.#upsert.run({ ...problem, ownerKind: item.owner.kind, ownerId: item.owner.id });
        return problem;
      },
    );
  }

  /**
   * Counts one more failure of the item and, with `backoff` (the default), schedules its next
   * attempt.
   */
  record(
    item: ProblemItem,
    reason: string,
    now: number = Date.now(),
    options: RecordOptions = { backoff: true },
  ): Problem {
    return this.#record.immediate(item, reason, now, options);
  }

  /** These items are no longer problems (by `Problem.key`); returns how many were. */
  clearKeys(keys: readonly string[]): number {
    return keys.length === 0 ? 0 : this.#clearKeys.immediate(keys);
  }

  /** The item succeeded; returns whether it had been in error. */
  clear(item: ProblemItem): boolean {
    return this.#clear.run(problemKey(item)).changes > 0;
  }

  get(item: ProblemItem): Problem | null {
    const row = this.#get.get(problemKey(item));
    return row ? toProblem(row) : null;
  }

  /** Oldest first; the first `limit` of them (the status page shows a screenful). */
  list(limit?: number): Problem[] {
    return this.#list.all(limit ?? -1).map(toProblem);
  }

  count(): number {
    return this.#count.get()!;
  }

  /** Drops every problem of an entity (the entity left the service). */
  clearOwner(owner: OwnerRef): number {
    return this.#clearOwner.run(owner.kind, owner.id).changes;
  }
}

function toProblem(row: ProblemRow): Problem {
  return {
    key: row.item_key,
    owner: ownerOf(row),
    documentId: row.document_id,
    path: row.path,
    reason: row.reason,
    attempts: row.attempts,
    firstSeenAt: row.first_seen_at,
    lastSeenAt: row.last_seen_at,
    nextAttemptAt: row.next_attempt_at,
    planFingerprint: row.plan_fingerprint,
  };
}
