/**
 * `/healthz`: 503 only when docsync cannot sync, so a monitor pages for an
 * outage and for nothing else: the state database cannot be used, the service will not let
 * docsync in (`docsync auth login`), or no sync has reached the service for longer than the
 * grace (`status.healthMaxAgeSeconds`: the service unreachable, every sync failing, a daemon
 * stuck). A sync held by a safety rail, a conflict, an item in error are things a person should
 * look at while docsync syncs everything else: `/healthz` answers 200 and lists them
 * (attention.ts), as the status page's header does. While deletes were held, a monitor used to
 * page as if docsync were down.
 */
import { createTask } from 'node-cron';
import { type AdviceForm, inAdviceForm } from '../domain/advice-form.js';
import type { StatusReport } from '../state/status-report.js';
import type { AttentionItem } from './attention.js';
import type { RuntimeStatus } from './runtime-status.js';

/** Cycles that did not get through: the only ones that do not count as reaching the service. */
const FAILED = 'error';
const FLOOR_MS = 30 * 60_000;

export interface Health {
  /** docsync can sync; false means it cannot, and `reasons` say why. */
  readonly healthy: boolean;
  readonly reasons: readonly string[];
  /** What waits for a person meanwhile (never a reason to be unhealthy). */
  readonly attention: readonly AttentionItem[];
  /** When a sync last got through (any result but `error`). */
  readonly lastGoodCycleAt: string | null;
  readonly maxAgeSeconds: number;
  readonly tokenValid: boolean;
}

export function checkHealth(
  report: Pick<StatusReport, 'lastCycle' | 'lastSuccessfulCycle'> | null,
  runtime: Pick<RuntimeStatus, 'tokenValid' | 'stateFailure' | 'daemon' | 'lastServiceAnswerAt'>,
  attention: readonly AttentionItem[],
  maxAgeMs: number,
  now: number,
): Health {
  const reasons: string[] = [];
  // First, because it outranks the rest: nothing can be recorded, and the daemon is stopping.
  if (runtime.stateFailure) reasons.push(runtime.stateFailure);
  const verdict = (lastGood: string | null): Health => ({
    healthy: reasons.length === 0,
    reasons,
    attention,
    lastGoodCycleAt: lastGood,
    maxAgeSeconds: Math.round(maxAgeMs / 1000),
    tokenValid: runtime.tokenValid,
  });
  // The state could not be read to say more; the failure above says why.
  if (report === null) return verdict(null);
  if (!runtime.tokenValid) {
    reasons.push('the service token is not valid; run `docsync auth login`');
  }
  const lastGood = lastGoodCycleAt(report);
  const reached = lastReached(report, lastGood, runtime, maxAgeMs, now);
  const last = report.lastCycle;
  const lastError =
    last?.result === FAILED && last.error ? `; the last sync ended with error: ${last.error}` : '';
  if (reached === null) {
    reasons.push(`no sync has finished yet${lastError}`);
  } else if (now - reached > maxAgeMs) {
    const minutes = Math.round((now - reached) / 60_000);
    reasons.push(
      `no sync has reached the service for ${minutes} min (limit ${Math.round(maxAgeMs / 60_000)} min)${lastError}`,
    );
  }
  return verdict(lastGood);
}

/** The reasons it cannot sync, with the commands they name in the form that runs here. */
export function advised(health: Health, advice: AdviceForm): Health {
  return { ...health, reasons: health.reasons.map((reason) => inAdviceForm(reason, advice)) };
}

/** The newest finished cycle that got through: ok, partial, held by a rail, or stopped. */
function lastGoodCycleAt(
  report: Pick<StatusReport, 'lastCycle' | 'lastSuccessfulCycle'>,
): string | null {
  const times = [report.lastSuccessfulCycle?.finishedAt ?? null];
  const last = report.lastCycle;
  if (last?.finishedAt && last.result !== null && last.result !== FAILED)
    times.push(last.finishedAt);
  const known = times.filter((t): t is string => t !== null).sort();
  return known.at(-1) ?? null;
}

/**
 * When docsync last got through to the service, as far as health is concerned: the last good
 * cycle; or now, while a sync runs and the service answered lately (a first sync of thousands of
 * entities runs for hours without finishing one cycle); a daemon's start gives it the grace to
 * get there. Null: nothing ever got through and no daemon start says since when to wait.
 */
function lastReached(
  report: Pick<StatusReport, 'lastCycle'>,
  lastGood: string | null,
  runtime: Pick<RuntimeStatus, 'daemon' | 'lastServiceAnswerAt'>,
  maxAgeMs: number,
  now: number,
): number | null {
  const running = report.lastCycle !== null && report.lastCycle.finishedAt === null;
  const answered = runtime.lastServiceAnswerAt ?? null;
  const times = [
    lastGood === null ? null : Date.parse(lastGood),
    runtime.daemon?.startedAt ?? null,
    running && answered !== null && now - answered <= maxAgeMs ? now : null,
  ].filter((t): t is number => t !== null);
  return times.length === 0 ? null : Math.max(...times);
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
