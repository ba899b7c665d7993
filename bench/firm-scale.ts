/**
 * Bench 17: firm scale against each way of counting (issue 35's proof). A firm of 3,000
 * companies and 2,000 trusts (2 documents each, one tiny attachment each) seeded in step; the
 * daemon at its defaults (10 requests a second) against a simulator of its own per run, counting
 * its limit in one mode, a monitor polling `/healthz` and `/metrics` every second. Measured: a
 * change only the round can see (p50 against half the round), the round alone (the rate let
 * through, entities listed a second), the round with 200 entities active against a quiet one,
 * webhook → file while 2,000 files go up during the next round, the 429s. Today's code beside BASELINE's, each
 * run on a fresh simulator seeded alike (lib/firm-scale-run.ts).
 */
import { spacingMs } from '../src/domain/request-governor.js';
import { isRateMode, RATE_MODES, type RateMode } from '../src/simulator/index.js';
import { buildAt } from './lib/baseline-build.js';
import { CLI } from './lib/daemon-process.js';
import {
  ACTIVE_EVERY_MS,
  ARRIVAL_JITTER_MS,
  BURST_FOLDERS,
  BURST_HOOK_EVERY_MS,
  CHANGES,
  HEAT_EVERY_MS,
  HOOK_COMPANIES,
  measureRun,
  type RunFigures,
} from './lib/firm-scale-run.js';
import { type BenchResult, type ResultRow, verdict } from './lib/result.js';
import { ms, percentile, seconds } from './lib/stats.js';

/** main before the request governor; 'none' skips the baseline. */
const BASELINE = process.env.BENCH17_BASELINE ?? '977d8915094c2c44238ce481ab7652768aafcd57';
const MODES = (process.env.BENCH17_MODES ?? RATE_MODES.join(',')).split(',').map((mode) => {
  if (!isRateMode(mode)) throw new Error(`BENCH17_MODES: ${mode} is not one of ${RATE_MODES}`);
  return mode;
});
/** The simulator's limit; docsync is told its default, 10. */
const LIMIT = Number(process.env.BENCH17_LIMIT ?? 10);
const TOLD = 10;
const SCALE = Number(process.env.BENCH17_SCALE ?? 1);
const PARALLEL = process.env.BENCH17_PARALLEL === '1';
/** `today` or `baseline` runs one side only (two invocations, each all at once, halve the load). */
const CODE = process.env.BENCH17_CODE ?? 'both';
const CAP_MS = process.env.BENCH17_CAP_MINUTES
  ? Number(process.env.BENCH17_CAP_MINUTES) * 60_000
  : undefined;
const FIRM = { companies: Math.round(3000 * SCALE), trusts: Math.round(2000 * SCALE) };
const ENTITIES = FIRM.companies + FIRM.trusts;
const FILES = Math.round(2000 * SCALE);
/** The round alone: whole periods of the governor's spacing, about a minute (less when short). */
const PERIOD_MS = TOLD * spacingMs(TOLD);
const ALONE_MS = Math.max(1, Math.round((Math.max(10, 60 * SCALE) * 1000) / PERIOD_MS)) * PERIOD_MS;

const SHORT = SCALE < 1 ? ` (scale ${SCALE})` : '';
const seen = (values: readonly (number | null)[]) => values.filter((v) => v !== null);
const pct = (values: readonly (number | null)[], p: number) => percentile(seen(values), p);
const secs = (values: readonly (number | null)[], p: number) => seconds(pct(values, p));
const pair = (values: readonly (number | null)[]) =>
  `${secs(values, 50)} / ${secs(values, 95)}${seen(values).length < values.length ? ` (${seen(values).length} of ${values.length} seen)` : ''}`;
const lat = (values: readonly number[]) =>
  `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))} / ${ms(Math.max(...values))}`;
const quietMs = (run: RunFigures) => (ENTITIES * 1000) / run.aloneAdvance;
const roundRatio = (run: RunFigures) => run.aloneAdvance / run.activeAdvance;
const round = (run: RunFigures) =>
  `${roundRatio(run).toFixed(2)} (${run.aloneAdvance.toFixed(2)} ÷ ${run.activeAdvance.toFixed(2)} entities/s); the round ${
    run.roundMs === null
      ? `not done at the cap (${seconds(run.capMs)}): ${run.left} entities left`
      : `${seconds(run.roundMs)}, a quiet one ${seconds(quietMs(run))}`
  }`;
const changeShare = (run: RunFigures) =>
  `${secs(run.changes, 50)} / ${secs(run.changes, 95)}; p50 = ${(pct(run.changes, 50) / (run.roundMs ?? run.capMs)).toFixed(2)} of the round${seen(run.changes).length < CHANGES ? ` (${seen(run.changes).length} of ${CHANGES} seen)` : ''}`;
const share = (run: RunFigures) =>
  `${run.tooMany} of ${run.requests} (${((100 * run.tooMany) / Math.max(1, run.requests)).toFixed(2)} %)`;

function rowsOf(mode: RateMode, now: RunFigures, before: RunFigures | null): ResultRow[] {
  const bench = `17 firm scale, ${mode}, limit ${LIMIT}/s${SHORT}`;
  const floor = (show: (run: RunFigures) => string) => (before ? show(before) : '-');
  const row = (
    measure: string,
    show: (run: RunFigures) => string,
    target: string,
    ok: boolean | 'info',
  ): ResultRow => ({
    bench,
    measure,
    figure: show(now),
    floor: floor(show),
    target,
    verdict: ok === 'info' ? 'info' : verdict(ok),
  });
  const known = LIMIT >= TOLD;
  const burstP95 = percentile(seen(now.hooksInBurst), 95);
  return [
    row(
      '/healthz once a second: p50 / p99 / max',
      (r) => lat(r.healthz),
      'p99 < 10 ms',
      percentile(now.healthz, 99) < 10,
    ),
    row(
      "event loop's worst delay per second: p50 / p99 / max",
      (r) => lat(r.lag),
      'p99 < 50 ms',
      percentile(now.lag, 99) < 50,
    ),
    row(
      `a change only the round sees (${CHANGES} trusts' statuses): p50 / p95`,
      changeShare,
      'p50 ≤ half a round',
      pct(now.changes, 50) <= (now.roundMs ?? now.capMs) / 2,
    ),
    row(
      `the round alone (${seconds(ALONE_MS)}): requests let through a second`,
      (r) => `${r.alonePassed.toFixed(2)}/s`,
      `≥ 90 % of ${LIMIT}/s`,
      now.alonePassed >= 0.9 * LIMIT,
    ),
    row(
      'the round alone: distinct entities listed a second',
      (r) => `${r.aloneAdvance.toFixed(2)}/s`,
      '-',
      'info',
    ),
    row(
      `webhook → file during the ${FILES.toLocaleString('en')}-file burst: p50 / p95`,
      (r) => `${pair(r.hooksInBurst)}; burst ${seconds(r.burstMs)}`,
      'p95 < 2 s',
      burstP95 < 2000,
    ),
    row(
      `webhook → file: making ${HOOK_COMPANIES} entities active (one every ${HEAT_EVERY_MS} ms) / then one every ${ACTIVE_EVERY_MS / 1000} s: p50 / p95`,
      (r) => `${pair(r.hooksHeat)}; ${pair(r.hooksActive)}`,
      '-',
      'info',
    ),
    row(
      `the round with ${HOOK_COMPANIES} active entities ÷ a quiet one: its advance alone ÷ while active`,
      round,
      '≤ 1.3',
      roundRatio(now) <= 1.3,
    ),
    row(
      '429 answers of all requests',
      share,
      known ? '0' : '< 0.1 %',
      known ? now.tooMany === 0 : now.tooMany / now.requests < 0.001,
    ),
    row('peak RSS (VmHWM)', (r) => `${(r.peakRss / 1e6).toFixed(0)} MB`, '-', 'info'),
  ];
}

export async function firmScale(): Promise<BenchResult> {
  const baselineCli = BASELINE === 'none' ? null : buildAt(BASELINE);
  const runOf = (mode: RateMode, cli: string, code: string) => async () => {
    const label = `${mode}-${LIMIT}-${code}`;
    const run = await measureRun({
      mode,
      limit: LIMIT,
      cli,
      label,
      firm: FIRM,
      files: FILES,
      aloneMs: ALONE_MS,
      capMs: CAP_MS,
    });
    process.stderr.write(
      `bench 17 ${label}: ${JSON.stringify({ ...run, healthz: run.healthz.length, lag: run.lag.length })}\n`,
    );
    return run;
  };
  const runs = MODES.map((mode) => ({
    mode,
    now:
      CODE === 'baseline' && baselineCli
        ? runOf(mode, baselineCli, 'baseline')
        : runOf(mode, CLI, 'today'),
    before: baselineCli && CODE === 'both' ? runOf(mode, baselineCli, 'baseline') : null,
  }));
  const jobs = runs.flatMap((r) => (r.before ? [r.now, r.before] : [r.now]));
  const done: RunFigures[] = [];
  if (PARALLEL) done.push(...(await Promise.all(jobs.map((job) => job()))));
  else for (const job of jobs) done.push(await job());
  const rows = runs.flatMap((r) => {
    const now = done.shift()!;
    return rowsOf(r.mode, now, r.before ? done.shift()! : null);
  });
  return { rows, notes: [notes()] };
}

function notes(): string {
  return `A firm of ${FIRM.companies.toLocaleString('en')} companies and ${FIRM.trusts.toLocaleString('en')} trusts, 2 documents each with one tiny attachment (seed 17), the store seeded in step (bench/lib/seed-synced-store.ts), each entity's last sync then spread over the last hour in a seeded order (the round goes stalest first: seeded at one instant, it would list every trust after every company). Each run has a simulator of its own limited to ${LIMIT} requests a second (BENCH17_LIMIT; docsync is told ${TOLD}, its default) counted in one mode (${MODES.join(', ')}; BENCH17_MODES; the bucket's burst 2), each request's arrival delayed by up to ${ARRIVAL_JITTER_MS} ms; the daemon at its defaults, its webhook pointed at by the simulator, schedule.cron each minute so rounds run back to back (its start round lists every entity). From ready, a monitor reads /healthz (timed) and /metrics (nodejs_eventloop_lag_max_seconds) once a second each, to the end. At the round's first entity listing, with the webhook target removed, the statuses of ${CHANGES} documents of trusts chosen at random (seeded) are changed, each timed until its .document.json shows it (read every 500 ms); then the webhook is back. The round alone: the next ${seconds(ALONE_MS)} (whole periods of the governor's spacing), requests let through a second (the simulator's counts, 429s excluded) and distinct entities listed a second (the simulator's \`listedOwners\`, the companies and trusts whose document list it answered: the baseline reports no round progress of its own); a quiet round is estimated as ${ENTITIES.toLocaleString('en')} ÷ that. Then ${HOOK_COMPANIES} companies are made active (hot), as a firm's busiest are: an attachment added in the simulator to a document of each in turn, one every ${HEAT_EVERY_MS} ms, each timed until its file is in the folder (read every 20 ms); then one more every ${ACTIVE_EVERY_MS / 1000} s, the same companies in turn (the issue's firm: about 200 webhooks and new folders over 36 minutes, its hot polls every ~10 s), until every entity was listed or the cap (BENCH17_CAP_MINUTES, default 2.5 × the quiet estimate), from the first listing. The round's advance from the last of the ${HOOK_COMPANIES} until its end (distinct entities a second) against its advance alone is the busy round against a quiet one (the making active is work asked for, in neither). Then, during the next round, ${FILES.toLocaleString('en')} files written into ${BURST_FOLDERS} document folders of ${BURST_FOLDERS} other companies, a webhook every ${BURST_HOOK_EVERY_MS / 1000} s meanwhile, until the simulator has every upload. The burst is not in the round's ratio: fair lanes give uploads three quarters of the rate while they wait and the round its last quarter, by design (docs/syncing.md, "Polling at firm scale"), so a 2,000-file burst lengthens the round it falls in by about 200 s whatever the polls do. The entities the webhooks made active count as listed when polled, round or not. Changes and files not there 30 s after the burst's end are counted as not seen. 429s over every request of the run; peak RSS is the daemon's VmHWM. Floor: the same with the daemon built from ${BASELINE === 'none' ? '(none: BENCH17_BASELINE=none)' : BASELINE.slice(0, 7)} (before the request governor; its store put back to schema 14, the later tables and indexes dropped), on a simulator of its own seeded alike. Runs: ${PARALLEL ? 'all at once (BENCH17_PARALLEL=1), each held to its limit by its own simulator' : 'one after the other'}; scale ${SCALE} (BENCH17_SCALE).`;
}
