/**
 * Housekeeping (docs/state.md "Housekeeping"): what docsync keeps only for a while goes once a
 * day. In the folder, the trash days past their retention and temp files left by a crash; in the
 * state, done pushes, finished webhook events, old cycles and conflicts resolved long ago. None
 * of it is needed by a sync: the rows pruned are finished and nothing open depends on them, and
 * a cycle writes only today's trash day and fresh temp files. The daemon runs it at start and
 * then daily; `run --once` runs it before its cycle.
 */

import { plural } from '../domain/words.js';
import type { LocalStore } from '../local/local-store.js';
import { DEFAULT_TRASH_DAYS, TMP_DIR, TRASH_DIR } from '../local/local-store.js';
import type { Logger } from '../log/create-logger.js';
import { isStateFailure } from '../state/state-failure.js';
import type { StateStore } from '../state/state-store.js';

const DAY_MS = 86_400_000;

/*
 * Retention. The trash keeps DEFAULT_TRASH_DAYS (30), as daemon.md promises: long enough to undo a
 * wrong delete noticed at the end of the month. Temp files untouched for a day go too (the sweep's
 * own rule): no download or staged folder lives that long, so one that old was left by a crash.
 */

/**
 * Done pushes: nothing reads them back (pruneDone keeps the parents open pushes wait on). Kept as
 * long as the trash, so what docsync sent and the trash copy of what it replaced can be traced
 * together.
 */
export const DONE_PUSH_DAYS = 30;
/**
 * Finished webhook events: the service redelivers for about 13 minutes (api.md), so a week still
 * recognises the latest duplicate with a wide margin, and lets a person look back at what arrived.
 */
export const WEBHOOK_EVENT_DAYS = 7;
/**
 * Cycles: a month of results answers "since when has it been failing?". The newest cycle and
 * the newest good one stay whatever their age, because /healthz measures from them.
 */
export const CYCLE_DAYS = 30;
/**
 * Conflict records, resolved ones only, counted from their resolution: the copies stay in the
 * folder until a person deals with them, so an open conflict stays listed whatever its age; the
 * record of a resolved one is kept a quarter, so someone back from leave still finds what
 * became of a copy.
 */
export const CONFLICT_DAYS = 90;

/** The daemon's rhythm. */
export const HOUSEKEEPING_EVERY_MS = DAY_MS;
/**
 * A start within this time of the last run skips housekeeping: a daemon restarted in a loop
 * (systemd, every 30 s while the service is down) need not sweep each time. 20 h rather than 24,
 * so the nightly catch-up timer, which may fire a few minutes earlier than the night before,
 * still runs it every night.
 */
export const HOUSEKEEPING_SKIP_WITHIN_MS = 20 * 60 * 60_000;

export interface HousekeepingDeps {
  readonly local: Pick<LocalStore, 'sweepTrash'>;
  readonly state: Pick<
    StateStore,
    'outbox' | 'webhookEvents' | 'cycles' | 'conflicts' | 'settings' | 'transaction'
  >;
  readonly logger: Logger;
  readonly now: () => number;
}

/** What one run removed. */
export interface HousekeepingReport {
  readonly trashDays: number;
  readonly tempFiles: number;
  readonly donePushes: number;
  readonly webhookEvents: number;
  readonly cycles: number;
  readonly conflicts: number;
}

/** Whether housekeeping should run now, given when it last ran. */
export function housekeepingDue(lastRunAt: number | null, now: number): boolean {
  // A clock set back (lastRunAt in the future) must not stop housekeeping for good.
  return lastRunAt === null || lastRunAt > now || now - lastRunAt >= HOUSEKEEPING_SKIP_WITHIN_MS;
}

/** Runs housekeeping unless it ran recently (see HOUSEKEEPING_SKIP_WITHIN_MS); null when skipped. */
export async function housekeepIfDue(deps: HousekeepingDeps): Promise<HousekeepingReport | null> {
  const last = deps.state.settings.housekeepingAt();
  if (!housekeepingDue(last, deps.now())) {
    deps.logger.debug({ lastRunAt: new Date(last!).toISOString() }, 'housekeeping ran recently');
    return null;
  }
  return runHousekeeping(deps);
}

/**
 * Sweeps the trash and temp files, prunes the state, records when, and logs one line with what
 * went. A failure is logged and the rest still runs: housekeeping never stops a sync. The
 * exception is a state failure (disk full, damaged file), which is thrown, because the caller
 * must stop for that whatever it was doing.
 */
export async function runHousekeeping(deps: HousekeepingDeps): Promise<HousekeepingReport> {
  const { state, logger } = deps;
  const now = deps.now();
  let swept: string[] = [];
  try {
    swept = await deps.local.sweepTrash(DEFAULT_TRASH_DAYS);
  } catch (error) {
    logger.warn({ err: error }, 'housekeeping could not sweep the trash; it tries again tomorrow');
  }
  const ago = (days: number) => now - days * DAY_MS;
  let pruned = { donePushes: 0, webhookEvents: 0, cycles: 0, conflicts: 0 };
  try {
    pruned = state.transaction(() => {
      const counts = {
        donePushes: state.outbox.pruneDone(ago(DONE_PUSH_DAYS)),
        webhookEvents: state.webhookEvents.prune(ago(WEBHOOK_EVENT_DAYS)),
        cycles: state.cycles.pruneBefore(ago(CYCLE_DAYS)),
        conflicts: state.conflicts.prune(ago(CONFLICT_DAYS)),
      };
      state.settings.setHousekeepingAt(now);
      return counts;
    });
  } catch (error) {
    if (isStateFailure(error)) throw error;
    logger.error({ err: error }, 'housekeeping could not prune the state; it tries again tomorrow');
  }
  const report: HousekeepingReport = {
    trashDays: swept.filter((p) => p.startsWith(`${TRASH_DIR}/`)).length,
    tempFiles: swept.filter((p) => p.startsWith(`${TMP_DIR}/`)).length,
    ...pruned,
  };
  const said = describeReport(report);
  // Nothing removed (a first run, a quiet day) is no news for the operator.
  if (said === null) logger.debug({ removed: report }, 'housekeeping: nothing to remove');
  else logger.info({ removed: report, paths: swept }, said);
  return report;
}

/** "housekeeping removed 2 trash days, 1 cycle": what it removed; null when nothing. */
function describeReport(r: HousekeepingReport): string | null {
  const parts = [
    [r.trashDays, 'trash day'],
    [r.tempFiles, 'temp file'],
    [r.donePushes, 'done push'],
    [r.webhookEvents, 'webhook event'],
    [r.cycles, 'cycle'],
    [r.conflicts, 'conflict record'],
  ] as const;
  const listed = parts
    .filter(([n]) => n > 0)
    .map(([n, what]) => (what.endsWith('h') && n !== 1 ? `${n} ${what}es` : plural(n, what)));
  return listed.length > 0 ? `housekeeping removed ${listed.join(', ')}` : null;
}
