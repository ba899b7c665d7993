/**
 * What `/healthz`, `/metrics` and the status page's header read: the last cycle and the last
 * good one, what waits for a person counted by kind, and when the stalest entity last synced.
 * Each is a count over a table of things waiting for a person (small, whatever the firm's
 * size) or a read on an index; none reads every entity and its cursor as the full status report
 * does. A monitor polls these every second or so, and building the whole report for each answer
 * held the event loop for as long as reading every entity takes, delaying every webhook and
 * request behind it. Read in one read transaction, so the counts agree with each other.
 */
import type { Database } from './open-database.js';
import type { StateStore } from './state-store.js';
import { type CycleSummary, summariseCycle } from './status-report.js';

/** What waits for a person, by kind, in the order web/attention.ts words and lists them. */
export interface WaitingCounts {
  /** Held deletes waiting for a decision (decided ones wait for their entity's sync). */
  readonly 'held-deletes': number;
  /** Open conflicts. */
  readonly conflicts: number;
  readonly 'items-in-error': number;
  /** Pushes the service refused. */
  readonly 'failed-pushes': number;
  readonly 'unmatched-folders': number;
  /** Entries not synced, but for the notes (a rename seen, a system form's edit kept). */
  readonly 'not-synced': number;
}

export interface HealthFacts {
  readonly lastCycle: CycleSummary | null;
  readonly lastSuccessfulCycle: CycleSummary | null;
  readonly waiting: WaitingCounts;
  /** When the least recently synced entity last synced (0: one never did); null: no entity. */
  readonly oldestSuccessAt: number | null;
}

export function readHealthFacts(store: StateStore, db: Database): HealthFacts {
  return db
    .transaction(
      (): HealthFacts => ({
        lastCycle: summariseCycle(store.cycles.last()),
        lastSuccessfulCycle: summariseCycle(store.cycles.lastSuccessful()),
        waiting: {
          'held-deletes': store.heldDeletes.tally().waiting,
          conflicts: store.conflicts.count(),
          'items-in-error': store.problems.count(),
          'failed-pushes': store.outbox.counts().failed,
          'unmatched-folders': store.entities.countUnmatchedFolders(),
          'not-synced': store.skipped.countToActOn(),
        },
        oldestSuccessAt: store.cursors.oldestSuccessAt(),
      }),
    )
    .deferred();
}
