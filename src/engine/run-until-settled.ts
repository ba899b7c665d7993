/**
 * A one-shot run finishes what it sees. A file still changing when its folder
 * was scanned counts only once it has settled, and a conflict copy the run made is uploaded by
 * the next cycle: left there, both would wait for a run that may come only tomorrow, while this
 * one exits 0 ("in sync"). So after the catch-up cycle, the entities that have such files get
 * another cycle once the settle time has passed, for a bounded while; what still moves after
 * that (a copy over a slow share) makes the run end "partial" for the next run to take.
 */
import { type Clock, waitOn } from '../domain/clock.js';
import { ExitCode } from '../domain/exit-codes.js';
import { addCounts } from './cycle-tally.js';
import type { EngineDeps } from './engine-deps.js';
import { type CycleOptions, type CycleReport, runCycle } from './run-cycle.js';

export interface SettleWait {
  /** The settle time: how long a file must stay unchanged to count. */
  readonly settleMs: number;
  /** The most the run waits, over all its rounds. */
  readonly maxWaitMs: number;
  /** What the waits are on: the clock the folder judges a file's age by. */
  readonly clock: Clock;
}

/** A little past the settle time, so a file written at the scan's instant has surely settled. */
const MARGIN_MS = 250;

export async function runUntilSettled(
  deps: EngineDeps,
  options: CycleOptions,
  settle: SettleWait,
): Promise<CycleReport> {
  let report = await runCycle(deps, options);
  // The follow-ups are the tail of the same run: no second progress bar from zero.
  const { onProgress: _shownOnce, ...followUp } = options;
  let waited = 0;
  while (report.settling.length > 0 && !options.dryRun && !options.signal?.aborted) {
    const pause = settle.settleMs + MARGIN_MS;
    if (waited + pause > settle.maxWaitMs) break;
    await wait(settle.clock, pause, options.signal);
    if (options.signal?.aborted) break;
    waited += pause;
    const again = await runCycle(deps, {
      ...followUp,
      fullReconcile: false,
      owners: report.settling,
      deletedIds: new Map(),
    });
    report = combine(report, again);
  }
  if (report.settling.length === 0 || report.result !== 'ok') return report;
  return { ...report, result: 'partial', exitCode: ExitCode.PartialFailure };
}

/** Resolves once `ms` have passed on `clock`, or at once when `signal` stops the run. */
function wait(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return waitOn(clock, ms, signal ?? new AbortController().signal, () => undefined).catch(
    () => undefined,
  );
}

/** The run so far and one more cycle over some of its entities. */
function combine(first: CycleReport, next: CycleReport): CycleReport {
  const worse = rank(next) > rank(first) ? next : first;
  return {
    result: worse.result,
    exitCode: worse.exitCode,
    entities: first.entities,
    actions: first.actions + next.actions,
    documentsFailed: first.documentsFailed + next.documentsFailed,
    documentsToCorrect: first.documentsToCorrect + next.documentsToCorrect,
    // The follow-up cycles are over some entities only: the catalogue was read by the first.
    recordsInError: first.recordsInError,
    left: {
      documents: first.left.documents + next.left.documents,
      entities: first.left.entities + next.left.entities,
    },
    counts: addCounts(first.counts, next.counts),
    tripped: [...first.tripped, ...next.tripped],
    unmatchedFolders: first.unmatchedFolders,
    settling: next.settling,
  };
}

const rank = (r: CycleReport) =>
  ({ ok: 0, partial: 1, interrupted: 2, 'safety-stop': 3 })[r.result];
