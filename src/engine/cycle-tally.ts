/**
 * What a cycle has done so far, counted where it happens (the executor, after each action and
 * each document), so that `--once`'s progress display and its summary only show numbers and
 * never work them out: entities and documents done, and the changes by direction with their
 * bytes.
 */
import type { DoneAction } from '../domain/describe-done.js';

/**
 * The changes of a run, by direction: domain/action-direction.ts classifies every action, and
 * describe-done.ts's `direction` says which count each goes to.
 */
export interface SyncCounts {
  /** Files, statuses and details taken from the service into the folder. */
  readonly pulled: number;
  /** Files, new documents' files and statuses sent to the service. */
  readonly pushed: number;
  /** Documents and files removed, on either side (locally: to `.docsync/trash/`). */
  readonly deleted: number;
  /** Changes on both sides that an action settled (the conflict log's entries). */
  readonly conflicts: number;
  readonly bytesPulled: number;
  readonly bytesPushed: number;
}

export const NO_COUNTS: SyncCounts = {
  pulled: 0,
  pushed: 0,
  deleted: 0,
  conflicts: 0,
  bytesPulled: 0,
  bytesPushed: 0,
};

export function addCounts(a: SyncCounts, b: SyncCounts): SyncCounts {
  return {
    pulled: a.pulled + b.pulled,
    pushed: a.pushed + b.pushed,
    deleted: a.deleted + b.deleted,
    conflicts: a.conflicts + b.conflicts,
    bytesPulled: a.bytesPulled + b.bytesPulled,
    bytesPushed: a.bytesPushed + b.bytesPushed,
  };
}

/** A cycle's progress, as the display shows it. */
export interface CycleProgress {
  readonly entitiesDone: number;
  readonly entitiesTotal: number;
  /** Documents with something to do, in the entities planned so far (it grows as they are). */
  readonly documentsPlanned: number;
  /** Of those, the documents carried out (or given up on this cycle). */
  readonly documentsDone: number;
  readonly counts: SyncCounts;
}

export class CycleTally {
  #counts: SyncCounts = NO_COUNTS;
  #entitiesDone = 0;
  #entitiesTotal = 0;
  #documentsPlanned = 0;
  #documentsDone = 0;

  constructor(private readonly onProgress?: (progress: CycleProgress) => void) {}

  get counts(): SyncCounts {
    return this.#counts;
  }

  /** The entities the cycle set out to sync. */
  get entitiesTotal(): number {
    return this.#entitiesTotal;
  }

  entities(total: number): void {
    this.#entitiesTotal = total;
    this.#report();
  }

  planned(documents: number): void {
    this.#documentsPlanned += documents;
    this.#report();
  }

  /** An action succeeded: what it moved, and whether it settled a conflict. */
  action(done: DoneAction | null, conflict: boolean): void {
    const c = this.#counts;
    const bytes = done?.bytes ?? 0;
    this.#counts = {
      pulled: c.pulled + (done?.direction === 'pulled' ? done.count : 0),
      pushed: c.pushed + (done?.direction === 'pushed' ? done.count : 0),
      deleted: c.deleted + (done?.direction === 'deleted' ? done.count : 0),
      conflicts: c.conflicts + (conflict ? 1 : 0),
      bytesPulled: c.bytesPulled + (done?.direction === 'pulled' ? bytes : 0),
      bytesPushed: c.bytesPushed + (done?.direction === 'pushed' ? bytes : 0),
    };
  }

  /** Documents carried out, or given up on this cycle (waiting, stopped, held by a rail). */
  documentDone(count = 1): void {
    this.#documentsDone += count;
    this.#report();
  }

  entityDone(): void {
    this.#entitiesDone++;
    this.#report();
  }

  #report(): void {
    this.onProgress?.({
      entitiesDone: this.#entitiesDone,
      entitiesTotal: this.#entitiesTotal,
      documentsPlanned: this.#documentsPlanned,
      documentsDone: this.#documentsDone,
      counts: this.#counts,
    });
  }
}
