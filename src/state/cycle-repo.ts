/**
 * The log of sync cycles, for `docsync status`, the status page and /healthz ("when did we last
 * sync successfully?"). A cycle is written when it starts, so one cut short by a crash stays
 * visible; `markInterrupted` closes such rows at the next start.
 */
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { parseJson, toJson } from './row-helpers.js';

/** `manual`: a person asked for it on the status page ("Sync now"). */
export type CycleTrigger = 'cron' | 'webhook' | 'watcher' | 'once' | 'manual';
export type CycleResult = 'ok' | 'partial' | 'safety-stop' | 'error' | 'interrupted';

export interface CycleStart {
  readonly trigger: CycleTrigger;
  /** One entity for a targeted cycle; null or absent for all. */
  readonly owner?: OwnerRef | null;
  readonly fullReconcile?: boolean;
  readonly startedAt: number;
}

export interface CycleFinish {
  readonly result: CycleResult;
  /** What the cycle did, e.g. `{ pulled: 3, pushed: 1, failed: 0 }`. */
  readonly counts?: Readonly<Record<string, number>> | null;
  readonly error?: string | null;
  readonly finishedAt: number;
}

export interface CycleRecord {
  readonly id: number;
  readonly trigger: CycleTrigger;
  readonly owner: OwnerRef | null;
  readonly fullReconcile: boolean;
  readonly startedAt: number;
  /** Null while running (or when the process died during it). */
  readonly finishedAt: number | null;
  readonly result: CycleResult | null;
  readonly counts: Readonly<Record<string, number>> | null;
  readonly error: string | null;
}

interface CycleRow {
  id: number;
  trigger: CycleTrigger;
  owner_kind: OwnerRef['kind'] | null;
  owner_id: string | null;
  full_reconcile: number;
  started_at: number;
  finished_at: number | null;
  result: CycleResult | null;
  counts_json: string | null;
  error: string | null;
}

export class CycleRepo {
  readonly #insert;
  readonly #finish;
  readonly #last;
  readonly #lastOk;
  readonly #recent;
  readonly #interrupt;
  readonly #prune;
  readonly #pruneBefore;

  constructor(db: Database) {
    this.#insert = db.prepare(
      `INSERT INTO cycles (trigger, owner_kind, owner_id, full_reconcile, started_at)
       VALUES (?, ?, ?, ?, ?)`,
    );
    this.#finish = db.prepare(
      `UPDATE cycles SET finished_at = @finishedAt, result = @result, counts_json = @counts,
         error = @error WHERE id = @id AND finished_at IS NULL`,
    );
    this.#last = db.prepare<[], CycleRow>('SELECT * FROM cycles ORDER BY id DESC LIMIT 1');
    this.#lastOk = db.prepare<[], CycleRow>(
      "SELECT * FROM cycles WHERE result = 'ok' ORDER BY id DESC LIMIT 1",
    );
    this.#recent = db.prepare<[number], CycleRow>('SELECT * FROM cycles ORDER BY id DESC LIMIT ?');
    this.#interrupt = db.prepare(
      `UPDATE cycles SET finished_at = ?, result = 'interrupted',
         error = 'docsync stopped before the cycle finished' WHERE finished_at IS NULL`,
    );
    this.#prune = db.prepare(
      'DELETE FROM cycles WHERE id <= (SELECT id FROM cycles ORDER BY id DESC LIMIT 1 OFFSET ?)',
    );
    // The newest cycle and the newest good one stay whatever their age: /healthz and the status
    // page measure from them ("the last good cycle finished 3 days ago" beats "none yet").
    this.#pruneBefore = db.prepare(
      `DELETE FROM cycles WHERE started_at < ? AND finished_at IS NOT NULL
         AND id < (SELECT max(id) FROM cycles)
         AND id <> coalesce((SELECT max(id) FROM cycles WHERE result = 'ok'), -1)`,
    );
  }

  /** Returns the cycle's id, for `finish`. */
  start(cycle: CycleStart): number {
    const { owner } = cycle;
    const info = this.#insert.run(
      cycle.trigger,
      owner?.kind ?? null,
      owner?.id ?? null,
      cycle.fullReconcile ? 1 : 0,
      cycle.startedAt,
    );
    return Number(info.lastInsertRowid);
  }

  /** Returns false when the cycle was already finished (or never started). */
  finish(id: number, outcome: CycleFinish): boolean {
    const info = this.#finish.run({
      id,
      finishedAt: outcome.finishedAt,
      result: outcome.result,
      counts: toJson(outcome.counts ?? undefined),
      error: outcome.error ?? null,
    });
    return info.changes === 1;
  }

  /** The most recently started cycle, finished or not. */
  last(): CycleRecord | null {
    const row = this.#last.get();
    return row ? toRecord(row) : null;
  }

  lastSuccessful(): CycleRecord | null {
    const row = this.#lastOk.get();
    return row ? toRecord(row) : null;
  }

  /** Newest first. */
  list(limit = 20): CycleRecord[] {
    return this.#recent.all(limit).map(toRecord);
  }

  /** At start-up (with the instance lock held): closes cycles a dead process left open. */
  markInterrupted(now: number): number {
    return this.#interrupt.run(now).changes;
  }

  /**
   * Forgets finished cycles started before `before`, except the newest cycle and the newest `ok`
   * one; returns how many were deleted.
   */
  pruneBefore(before: number): number {
    return this.#pruneBefore.run(before).changes;
  }

  /** Keeps the newest `keep` cycles; returns how many were deleted. */
  prune(keep: number): number {
    return this.#prune.run(Math.max(0, Math.floor(keep))).changes;
  }
}

function toRecord(row: CycleRow): CycleRecord {
  return {
    id: row.id,
    trigger: row.trigger,
    owner:
      row.owner_kind !== null && row.owner_id !== null
        ? { kind: row.owner_kind, id: row.owner_id }
        : null,
    fullReconcile: row.full_reconcile === 1,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    result: row.result,
    counts: parseJson<Record<string, number>>(row.counts_json),
    error: row.error,
  };
}
