/**
 * The work asked for each entity, one row per entity, from the moment something asks for its sync
 * until a sync of it that started after the asking succeeds. Kept in the state, not only in the
 * daemon's memory, so that a stop, a crash or a failed sync loses none of it: the next start
 * requests what is left first, a failed sync is tried again when its backoff ends, and
 * `docsync status` in another process sees the local work waiting for its upload.
 *
 * Each observation takes the next number of one counter (`seen`). A sync notes the counter when
 * it starts; when it succeeds it settles only the rows seen up to then, so an observation made
 * while it ran stays for the sync after it. The counter lives in memory, from the largest number
 * the state holds at open: one process writes the table at a time, and a sync never outlives its
 * process.
 */
import type { Lane } from '../domain/lanes.js';
import { LANE_PRIORITY } from '../domain/lanes.js';
import type { LocalWork } from '../domain/local-work.js';
import type { OwnerRef } from '../domain/types.js';
import type { CycleTrigger } from './cycle-repo.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf, ownerParams } from './row-helpers.js';

/** Why an entity has work: what asked for its sync, a look's local work, a hold's end. */
export type WorkReason = CycleTrigger | 'local' | 'hold';

export interface Observation {
  readonly reason: WorkReason;
  readonly lane: Lane;
  readonly at: number;
  /** When the sync may start (a hold's end); now when absent. */
  readonly dueAt?: number;
  /** Only a full listing settles it (a deletion is seen only there). */
  readonly full?: boolean;
  /** Read the companies and trusts again first. */
  readonly refresh?: boolean;
}

export interface WorkRow {
  readonly owner: OwnerRef;
  readonly reasons: readonly WorkReason[];
  readonly lane: Lane;
  readonly full: boolean;
  readonly refresh: boolean;
  readonly seen: number;
  readonly firstSeenAt: number;
  readonly lastSeenAt: number;
  readonly dueAt: number;
  readonly attempts: number;
  readonly lastError: string | null;
}

export interface LocalWorkRecord extends LocalWork {
  readonly owner: OwnerRef;
  readonly foundAt: number;
}

export interface LocalWorkTally extends LocalWork {
  readonly entities: number;
  /** When the oldest of it was found; null when nothing waits. */
  readonly since: number | null;
}

interface Row extends OwnerColumns {
  reasons: string;
  lane: Lane;
  full_listing: number;
  refresh: number;
  seen: number;
  first_seen_at: number;
  last_seen_at: number;
  due_at: number;
  attempts: number;
  last_error: string | null;
  documents: number | null;
  files: number | null;
  found_at: number | null;
}

export class EntityWorkRepo {
  #seen: number;
  readonly #get;
  readonly #put;
  readonly #local;
  readonly #settle;
  readonly #settleAll;
  readonly #clearLocal;
  readonly #clearAllLocal;
  readonly #fail;
  readonly #remove;
  readonly #due;
  readonly #nextDue;
  readonly #all;
  readonly #localList;
  readonly #localTally;
  readonly #observe;
  readonly #tally;
  readonly #failing;

  constructor(db: Database) {
    // A webhook event keeps the number of the observation it made until a sync settles it: the
    // numbers go on from the largest either table holds, so a sync started later covers it.
    this.#seen =
      db
        .prepare<[], { seen: number | null }>(
          `SELECT max(seen) AS seen FROM (SELECT max(seen) AS seen FROM entity_work
             UNION ALL SELECT max(work_seen) FROM webhook_events WHERE state = 'received')`,
        )
        .get()!.seen ?? 0;
    const owner = 'owner_kind = @ownerKind AND owner_id = @ownerId';
    this.#get = db.prepare<Record<string, unknown>, Row>(
      `SELECT * FROM entity_work WHERE ${owner}`,
    );
    this.#put = db.prepare(
      `INSERT INTO entity_work (owner_kind, owner_id, reasons, lane, full_listing, refresh, seen,
         first_seen_at, last_seen_at, due_at)
       VALUES (@ownerKind, @ownerId, @reasons, @lane, @full, @refresh, @seen, @at, @at, @dueAt)
       ON CONFLICT (owner_kind, owner_id) DO UPDATE SET reasons = excluded.reasons,
         lane = excluded.lane, full_listing = excluded.full_listing, refresh = excluded.refresh,
         seen = excluded.seen, last_seen_at = excluded.last_seen_at, due_at = excluded.due_at`,
    );
    this.#local = db.prepare(
      `UPDATE entity_work SET documents = @documents, files = @files, found_at = @at WHERE ${owner}`,
    );
    this.#settle = db.prepare(
      `DELETE FROM entity_work WHERE ${owner} AND seen <= @seen AND (full_listing = 0 OR @full = 1)`,
    );
    this.#settleAll = db.prepare(
      'DELETE FROM entity_work WHERE seen <= @seen AND (full_listing = 0 OR @full = 1)',
    );
    this.#clearLocal = db.prepare(
      `UPDATE entity_work SET documents = NULL, files = NULL, found_at = NULL, attempts = 0,
         last_error = NULL WHERE ${owner}`,
    );
    this.#clearAllLocal = db.prepare(
      'UPDATE entity_work SET documents = NULL, files = NULL, found_at = NULL, attempts = 0, last_error = NULL',
    );
    this.#fail = db.prepare(
      `UPDATE entity_work SET attempts = attempts + 1, last_error = @error,
         due_at = max(due_at, @dueAt) WHERE ${owner}`,
    );
    this.#remove = db.prepare(`DELETE FROM entity_work WHERE ${owner}`);
    this.#due = db.prepare<[number], Row>(
      'SELECT * FROM entity_work WHERE due_at <= ? ORDER BY due_at, first_seen_at',
    );
    this.#nextDue = db.prepare<[number], { at: number | null }>(
      'SELECT min(due_at) AS at FROM entity_work WHERE due_at > ?',
    );
    this.#all = db.prepare<[], Row>('SELECT * FROM entity_work ORDER BY due_at, first_seen_at');
    this.#localList = db.prepare<[number], Row>(
      `SELECT * FROM entity_work WHERE documents IS NOT NULL
       ORDER BY files DESC, documents DESC, owner_kind, owner_id LIMIT ?`,
    );
    this.#localTally = db.prepare<
      [],
      { entities: number; documents: number | null; files: number | null; since: number | null }
    >(
      `SELECT count(*) AS entities, sum(documents) AS documents, sum(files) AS files,
         min(found_at) AS since FROM entity_work WHERE documents IS NOT NULL`,
    );
    this.#tally = db.prepare<[], { entities: number; failing: number | null }>(
      'SELECT count(*) AS entities, sum(attempts > 0) AS failing FROM entity_work',
    );
    this.#failing = db.prepare<[number], Row>(
      'SELECT * FROM entity_work WHERE attempts > 0 ORDER BY attempts DESC, due_at LIMIT ?',
    );
    this.#observe = db.transaction((target: OwnerRef, observation: Observation) => {
      const was = this.#get.get(ownerParams(target));
      const reasons = new Set<string>(was ? was.reasons.split(' ') : []);
      reasons.add(observation.reason);
      const lane =
        was && LANE_PRIORITY[was.lane] > LANE_PRIORITY[observation.lane]
          ? was.lane
          : observation.lane;
      const dueAt = observation.dueAt ?? observation.at;
      this.#seen += 1;
      this.#put.run({
        ...ownerParams(target),
        reasons: [...reasons].sort().join(' '),
        lane,
        full: was?.full_listing || observation.full ? 1 : 0,
        refresh: was?.refresh || observation.refresh ? 1 : 0,
        seen: this.#seen,
        at: observation.at,
        dueAt: was ? Math.min(was.due_at, dueAt) : dueAt,
      });
      return this.#seen;
    });
  }

  /** Records that the entity has work; returns the observation's number. */
  observe(owner: OwnerRef, observation: Observation): number {
    return this.#observe(owner, observation);
  }

  /** The number of the last observation: a sync starting now covers every row up to it. */
  seenSoFar(): number {
    return this.#seen;
  }

  /**
   * What a look found in the entity's folder and not in the agreed state; null: nothing. Work
   * found is an observation; none found clears only the count (the row may have other reasons).
   */
  noteLocal(owner: OwnerRef, work: LocalWork | null, at: number): void {
    if (work !== null) this.observe(owner, { reason: 'local', lane: 'watcher', at });
    this.#local.run({
      ...ownerParams(owner),
      documents: work?.documents ?? null,
      files: work?.files ?? null,
      at: work === null ? null : at,
    });
  }

  /**
   * A sync of the entity that started at `seen` succeeded: what was observed up to then is done
   * (a row asking for a full listing only by a full sync); what came after stays, its count and
   * failures cleared, for the sync after it. Returns whether the entity has no work left.
   */
  settle(owner: OwnerRef, seen: number, full: boolean): boolean {
    const params = { ...ownerParams(owner), seen, full: full ? 1 : 0 };
    if (this.#settle.run(params).changes > 0) return true;
    return this.#clearLocal.run(ownerParams(owner)).changes === 0;
  }

  /**
   * A sync of every entity that started at `seen` ran to its end: it sent what the folders held,
   * and settles the rows up to `seen` (0 when it did not succeed everywhere: none).
   */
  settleAll(seen: number, full: boolean): void {
    this.#settleAll.run({ seen, full: full ? 1 : 0 });
    this.#clearAllLocal.run();
  }

  /**
   * A sync of the entity failed: one attempt more, and its work waits until `dueAfter` says for
   * that many attempts. Null when it had no row (a poll: the policy lists it again).
   */
  failed(owner: OwnerRef, error: string, dueAfter: (attempts: number) => number): WorkRow | null {
    const was = this.get(owner);
    if (!was) return null;
    this.#fail.run({ ...ownerParams(owner), error, dueAt: dueAfter(was.attempts + 1) });
    return this.get(owner);
  }

  get(owner: OwnerRef): WorkRow | null {
    const row = this.#get.get(ownerParams(owner));
    return row ? toWork(row) : null;
  }

  /** The entity is forgotten. */
  clear(owner: OwnerRef): void {
    this.#remove.run(ownerParams(owner));
  }

  /** The rows whose time has come, the longest due first. */
  due(now: number): WorkRow[] {
    return this.#due.all(now).map(toWork);
  }

  /** When the next row after `after` falls due; null when none waits. */
  nextDueAt(after: number): number | null {
    return this.#nextDue.get(after)!.at;
  }

  /** Every row, the longest due first. */
  all(): WorkRow[] {
    return this.#all.all().map(toWork);
  }

  /** How many entities have work asked for, and how many of them failed their last sync. */
  tally(): { readonly entities: number; readonly failing: number } {
    const row = this.#tally.get()!;
    return { entities: row.entities, failing: row.failing ?? 0 };
  }

  /** The rows whose last sync failed, the most attempts first. */
  failing(limit: number): WorkRow[] {
    return this.#failing.all(limit).map(toWork);
  }

  /** The entities with the most local work waiting first. */
  localWork(limit: number): LocalWorkRecord[] {
    return this.#localList.all(limit).map((row) => ({
      owner: ownerOf(row),
      documents: row.documents!,
      files: row.files!,
      foundAt: row.found_at!,
    }));
  }

  localTally(): LocalWorkTally {
    const row = this.#localTally.get()!;
    return {
      entities: row.entities,
      documents: row.documents ?? 0,
      files: row.files ?? 0,
      since: row.since,
    };
  }
}

function toWork(row: Row): WorkRow {
  return {
    owner: ownerOf(row),
    reasons: row.reasons.split(' ') as WorkReason[],
    lane: row.lane,
    full: row.full_listing === 1,
    refresh: row.refresh === 1,
    seen: row.seen,
    firstSeenAt: row.first_seen_at,
    lastSeenAt: row.last_seen_at,
    dueAt: row.due_at,
    attempts: row.attempts,
    lastError: row.last_error,
  };
}
