/**
 * `/healthz`: healthy only when sync is really happening, so systemd watchers and monitoring
 * can alert on a daemon that runs but no longer syncs. Healthy means: the state database can be
 * written, the last finished cycle did not fail, the last good one finished recently, and the
 * service token is valid. A cycle with some items in error (`partial`) counts as good: one bad
 * file must not mark the whole daemon down forever; those items are on the status page.
 */
import { createTask } from 'node-cron';
import type { StatusReport } from '../state/status-report.js';
import type { RuntimeStatus } from './runtime-status.js';

const FAILED_RESULTS = new Set(['error', 'safety-stop', 'interrupted']);
const FLOOR_MS = 30 * 60_000;

export interface Health {
  readonly healthy: boolean;
  readonly reasons: readonly string[];
  readonly lastGoodCycleAt: string | null;
  readonly maxAgeSeconds: number;
  readonly tokenValid: boolean;
}

export function checkHealth(
  report: Pick<StatusReport, 'lastCycle' | 'lastSuccessfulCycle'> | null,
  runtime: Pick<RuntimeStatus, 'tokenValid' | 'stateFailure'>,
  maxAgeMs: number,
  now: number,
): Health {
  const reasons: string[] = [];
  // First, because it outranks the rest: nothing can be recorded, and the daemon is stopping.
  if (runtime.stateFailure) reasons.push(runtime.stateFailure);
  if (report === null) {
    // The state could not be read to say more; the failure above says why.
    return {
      healthy: false,
      reasons,
      lastGoodCycleAt: null,
      maxAgeSeconds: Math.round(maxAgeMs / 1000),
      tokenValid: runtime.tokenValid,
    };
  }
  const last = report.lastCycle;
  if (last?.finishedAt && last.result !== null && FAILED_RESULTS.has(last.result)) {
    reasons.push(`the last cycle ended with ${last.result}${last.error ? `: ${last.error}` : ''}`);
  }
  const lastGood = lastGoodCycleAt(report);
  if (lastGood === null) {
    reasons.push('no cycle has finished successfully yet');
  } else if (now - Date.parse(lastGood) > maxAgeMs) {
    const minutes = Math.round((now - Date.parse(lastGood)) / 60_000);
    reasons.push(
      `the last good cycle finished ${minutes} min ago (limit ${Math.round(maxAgeMs / 60_000)} min)`,
    );
  }
  if (!runtime.tokenValid) {
    reasons.push('the service token is not valid; run `docsync auth login`');
  }
  return {
    healthy: reasons.length === 0,
    reasons,
    lastGoodCycleAt: lastGood,
    maxAgeSeconds: Math.round(maxAgeMs / 1000),
    tokenValid: runtime.tokenValid,
  };
}

function lastGoodCycleAt(
  report: Pick<StatusReport, 'lastCycle' | 'lastSuccessfulCycle'>,
): string | null {
  const times = [report.lastSuccessfulCycle?.finishedAt ?? null];
  if (report.lastCycle?.result === 'partial') times.push(report.lastCycle.finishedAt);
  const known = times.filter((t): t is string => t !== null).sort();
  return known.at(-1) ?? null;
}

/**
 * `status.healthMaxAgeSeconds`, else the longer of 3 cron intervals and 30 min: three missed
 * cycles in a row is worth an alert, but a one-minute schedule must not fail health during one
 * slow cycle. For an uneven schedule (working hours only) the longest gap counts, so the night
 * is not reported as an outage.
 */
export function healthMaxAgeMs(config: {
  readonly status: { readonly healthMaxAgeSeconds?: number | undefined };
  readonly schedule: { readonly cron: string };
}): number {
  if (config.status.healthMaxAgeSeconds !== undefined) {
    return config.status.healthMaxAgeSeconds * 1000;
  }
  return Math.max(3 * longestCronGapMs(config.schedule.cron), FLOOR_MS);
}

/**
 * Schedules already worked out: finding the gap takes 200 runs of the cron matcher (tens of
 * milliseconds), and a process that starts daemons by the thousand (the simulation) asks for
 * the same schedule each time.
 */
const cronGaps = new Map<string, number>();

/** The longest gap between the next runs of `cron` (one week of a daily schedule, at least). */
export function longestCronGapMs(cron: string): number {
  const known = cronGaps.get(cron);
  if (known !== undefined) return known;
  const task = createTask(cron, () => {});
  try {
    const runs = task.getNextRuns(200).map((d) => d.getTime());
    let longest = 0;
    for (let i = 1; i < runs.length; i++) longest = Math.max(longest, runs[i]! - runs[i - 1]!);
    cronGaps.set(cron, longest);
    return longest;
  } finally {
    void task.destroy();
  }
}
