/**
 * Bench 15: what a monitor's `/healthz` costs a daemon of 5,000 entities (issue 35), with the
 * status page open. A store of 3,000 companies and 2,000 trusts seeded in step; the real daemon
 * started on it at 10 requests a second against a simulator limited to the same, its start round
 * under way. Over WINDOW seconds: `/healthz` every 250 ms (timed), the status page every 2 s (a
 * few people with it open), a request the listener answers 404 every 250 ms (how long anything
 * else waits behind the status work), and `/metrics` every second (the event loop's worst delay
 * since the last read). Today's daemon beside the daemon built from BASELINE, each on its own
 * copy of the store with its own token, one after the other against one simulator.
 */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { buildAt } from './lib/baseline-build.js';
import { asSchemaBeforeGovernor } from './lib/baseline-schema.js';
import { CLI, type DaemonProcess, startDaemon } from './lib/daemon-process.js';
import { type BenchResult, verdict } from './lib/result.js';
import { seedSyncedStore } from './lib/seed-synced-store.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { ms, percentile, sleep } from './lib/stats.js';
import { scratch } from './lib/temp.js';

/** The commit before the health facts and the page built in slices. */
const BASELINE = process.env.BENCH15_BASELINE ?? '977d891';
const WINDOW_MS = Number(process.env.BENCH15_SECONDS ?? 60) * 1000;
const RATE = 10;
const FIRM = {
  companies: 3000,
  trusts: 2000,
  documentsPerEntity: 0,
  seed: 15,
};

interface Figures {
  readonly healthz: number[];
  readonly notFound: number[];
  readonly page: number[];
  /** The loop's worst delay in each second, ms. */
  readonly lag: number[];
}

/** Calls `request` every `everyMs` for WINDOW_MS, one at a time; the times each took. */
async function poll(everyMs: number, request: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + WINDOW_MS;
  while (performance.now() < end) {
    const started = performance.now();
    await request();
    times.push(performance.now() - started);
    await sleep(Math.max(0, everyMs - (performance.now() - started)));
  }
  return times;
}

const read = (url: string) => async () => (await fetch(url)).text();

async function measure(daemon: DaemonProcess): Promise<Figures> {
  const url = daemon.statusUrl;
  const lag: number[] = [];
  const [healthz, notFound, page] = await Promise.all([
    poll(250, read(`${url}/healthz`)),
    poll(250, read(`${url}/nothing-here`)),
    poll(2000, read(`${url}/`)),
    poll(1000, async () => {
      const text = await read(`${url}/metrics`)();
      const max = /^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1];
      if (max !== undefined) lag.push(Number(max) * 1000);
    }),
  ]);
  return { healthz: healthz!, notFound: notFound!, page: page!, lag };
}

async function run(sim: SimProcess, store: string, cli: string, label: string): Promise<Figures> {
  const dir = scratch(`health-${label}`);
  cpSync(store, dir, { recursive: true });
  // The default baseline is at schema 14; another is the caller's to match.
  if (cli !== CLI && '977d8915094c2c44238ce481ab7652768aafcd57'.startsWith(BASELINE))
    asSchemaBeforeGovernor(path.join(dir, 'state', 'docsync.db'));
  const daemon = await startDaemon(
    sim,
    dir,
    { queue: { requestsPerSecond: RATE, concurrency: 4 } },
    600_000,
    cli,
    true,
  );
  try {
    // The start round sets up (the catalogue, every folder looked at), then lists.
    await sleep(10_000);
    return await measure(daemon);
  } finally {
    await daemon.close();
  }
}

export async function healthCost(): Promise<BenchResult> {
  // One simulator: the store names the service it is in step with. Each daemon gets a token
  // of its own, and the limit counts per token.
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: 0 });
  try {
    const store = scratch('health-store');
    await seedSyncedStore(sim, store);
    await sim.admin('PUT', '/rate-limit', { perSecond: RATE });
    const before = await run(sim, store, buildAt(BASELINE), 'baseline');
    const now = await run(sim, store, CLI, 'today');
    return report(before, now);
  } finally {
    await sim.close();
  }
}

function report(before: Figures, now: Figures): BenchResult {
  const bench = '15 health at 5,000 entities';
  const p = (values: readonly number[], q: number) => ms(percentile(values, q));
  const pair = (values: readonly number[]) => `${p(values, 50)} / ${p(values, 99)}`;
  return {
    rows: [
      {
        bench,
        measure: `/healthz every 250 ms, page every 2 s: p50 / p99 (${now.healthz.length} answers; floor: built from ${BASELINE})`,
        figure: pair(now.healthz),
        floor: pair(before.healthz),
        target: 'p99 < 10 ms',
        verdict: verdict(percentile(now.healthz, 99) < 10),
      },
      {
        bench,
        measure: 'a 404 on the same listener meanwhile: p50 / p99',
        figure: pair(now.notFound),
        floor: pair(before.notFound),
        target: '-',
        verdict: 'info',
      },
      {
        bench,
        measure: "event loop's worst delay per second: p50 / p99",
        figure: pair(now.lag),
        floor: pair(before.lag),
        target: 'p99 < 50 ms',
        verdict: verdict(percentile(now.lag, 99) < 50),
      },
      {
        bench,
        measure: 'the status page: p50 / p99',
        figure: pair(now.page),
        floor: pair(before.page),
        target: '-',
        verdict: 'info',
      },
    ],
    notes: [
      `A store of ${FIRM.companies + FIRM.trusts} entities (${FIRM.companies} companies, ${FIRM.trusts} trusts) seeded in step (bench/lib/seed-synced-store.ts), copied for each daemon; the simulator limited to ${RATE} requests a second, the daemon at the same rate, started with its start round (a full listing of every entity, over eight minutes), measured from 10 s after it answered /healthz, for ${WINDOW_MS / 1000} s (BENCH15_SECONDS): /healthz every 250 ms, a path the listener answers 404 every 250 ms, the status page (\`/\`, its default view) every 2 s, and /metrics every second for nodejs_eventloop_lag_max_seconds, the loop's worst delay since the previous read (src/web/process-metrics.ts). Each caller waits for its answer before its next request. Floor: the same with the daemon built from ${BASELINE} (BENCH15_BASELINE), which built the whole status report for each /healthz and the page at once, on its own copy of the store with a token of its own, against the same simulator, just before.`,
    ],
  };
}
