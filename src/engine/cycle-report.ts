/**
 * What a cycle says when it ends: the result `docsync status` shows and the exit code `--once`
 * ends with (daemon.md): a rail that held deletes back is a safety stop (2), a signal that
 * stopped it is interrupted (4), an item in error or a record of the service that could not be
 * read makes it partial (3), otherwise in sync (0).
 */
import type { TrippedRail } from '../domain/check-safety.js';
import { ExitCode } from '../domain/exit-codes.js';
import type { OwnerRef } from '../domain/types.js';
import { NO_COUNTS, type SyncCounts } from './cycle-tally.js';

export interface CycleReport {
  readonly result: 'ok' | 'partial' | 'interrupted' | 'safety-stop';
  readonly exitCode: number;
  readonly entities: number;
  readonly actions: number;
  /** Documents in error: what `docsync status` lists as items in error. */
  readonly documentsFailed: number;
  /**
   * Of those, the documents in error only for a problem the person must correct (a status the
   * service has no type for): they do not keep the first sync from ending.
   */
  readonly documentsToCorrect: number;
  /** Companies and trusts the service sent that could not be read, so were not synced. */
  readonly recordsInError: number;
  /** What a stop left for the next run: documents not done, entities not reached. */
  readonly left: Left;
  /** What the cycle moved, by direction. */
  readonly counts: SyncCounts;
  readonly tripped: readonly TrippedRail[];
  readonly unmatchedFolders: readonly string[];
  /** Entities with local files left for a later cycle (EntityOutcome.settling). */
  readonly settling: readonly OwnerRef[];
}

export interface Left {
  readonly documents: number;
  readonly entities: number;
}

export const NOTHING_LEFT: Left = { documents: 0, entities: 0 };

export interface ReportParts {
  readonly entities: number;
  readonly actions?: number;
  readonly failed?: number;
  readonly toCorrect?: number;
  readonly recordsInError?: number;
  readonly tripped?: readonly TrippedRail[];
  readonly unmatched?: readonly string[];
  readonly settling?: readonly OwnerRef[];
  /** Stopped by a signal: what was left is the next run's. */
  readonly interrupted?: boolean;
  readonly left?: Left;
  readonly counts?: SyncCounts;
}

export function cycleReport(parts: ReportParts): CycleReport {
  const { actions = 0, failed = 0, tripped = [], unmatched = [], settling = [] } = parts;
  const { recordsInError = 0, toCorrect = 0 } = parts;
  const { counts = NO_COUNTS, left = NOTHING_LEFT } = parts;
  const result =
    tripped.length > 0
      ? 'safety-stop'
      : parts.interrupted
        ? 'interrupted'
        : failed > 0 || recordsInError > 0
          ? 'partial'
          : 'ok';
  const exitCode = {
    'safety-stop': ExitCode.SafetyStop,
    interrupted: ExitCode.Interrupted,
    partial: ExitCode.PartialFailure,
    ok: ExitCode.InSync,
  }[result];
  return {
    result,
    exitCode,
    entities: parts.entities,
    actions,
    documentsFailed: failed,
    documentsToCorrect: toCorrect,
    recordsInError,
    left,
    counts,
    tripped,
    unmatchedFolders: unmatched,
    settling,
  };
}
