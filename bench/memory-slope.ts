/**
 * Bench 10: peak memory against firm size (issue 16). The real daemon, started on a store in
 * step with 25,000, 50,000 and 100,000 documents (1,000 entities; seeded as bench 5 does), runs
 * its start round, which lists every document; and started on an empty store, runs its first
 * sync (every document pulled) of the same sizes. Peak RSS is the process's VmHWM once its
 * round has ended; the slope is per 10,000 documents (least squares), and the verdict is the
 * peak measured at 100,000. Baseline: an idle Node process's RSS, measured in the same run.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startDaemon } from './lib/daemon-process.js';
import { memoryOf } from './lib/proc-usage.js';
import { type BenchResult, verdict } from './lib/result.js';
import { seedSyncedStore } from './lib/seed-synced-store.js';
import { startSimProcess } from './lib/sim-process.js';
import { seconds, sleep, until } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const ENTITIES = { companies: 500, trusts: 500 };
const sizes = (name: string, fallback: number[]) =>
  process.env[name]?.split(',').map(Number) ?? fallback;
/** Documents per entity: 25,000 to 100,000 (BENCH10_START overrides, e.g. "100"). */
const START_SIZES = sizes('BENCH10_START', [25, 50, 100]);
/** The same (BENCH10_INITIAL overrides): the first sync of 100,000 takes ~12 minutes. */
const INITIAL_SIZES = sizes('BENCH10_INITIAL', [25, 50, 100]);
const TARGET = 300e6;
/**
 * The first sync's pace. What the store remembers of its own writes is kept 30 s (so the
 * watcher does not report them back), so memory depends a little on how much a sync writes in
 * that time: 300 requests a second keeps the runs in minutes and holds thirty times what a real
 * sync at the service's 10 a second does. BENCH10_INITIAL_RATE overrides.
 */
const INITIAL_RATE = Number(process.env.BENCH10_INITIAL_RATE ?? 300);
const MB = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

interface Peak {
  readonly documents: number;
  /** Documents in the agreed state after the round: all of them, or the figure means little. */
  readonly synced: number;
  readonly hwm: number;
  readonly roundMs: number;
}

/** The daemon's peak RSS from start to the end of its first round. */
async function peakOfRound(perEntity: number, seeded: boolean): Promise<Peak> {
  const firm = {
    ...ENTITIES,
    documentsPerEntity: perEntity,
    attachmentsPerDocument: 1,
    attachmentBytes: 0,
    seed: 10,
  };
  const sim = await startSimProcess({ seed: firm, rateLimitPerSecond: 0 });
  try {
    const dir = scratch(`memory-${seeded ? 'start' : 'initial'}-${perEntity}`);
    if (seeded) await seedSyncedStore(sim, dir);
    const started = performance.now();
    const daemon = await startDaemon(
      sim,
      dir,
      { queue: { requestsPerSecond: seeded ? 100 : INITIAL_RATE, concurrency: 8 } },
      1_800_000,
    );
    try {
      const db = new Database(path.join(dir, 'state', 'docsync.db'), { readonly: true });
      // The round's own row has no owner. Hot polls write 'cron' rows of one entity each, and
      // the first sync makes every entity it pulls hot: waiting for any 'cron' row read the
      // state while the first round was a fifth done.
      const done = db.prepare(
        "SELECT count(*) FROM cycles WHERE trigger = 'cron' AND owner_id IS NULL AND finished_at IS NOT NULL",
      );
      const already = seeded ? (done.pluck().get() as number) : 0;
      await until(() => (done.pluck().get() as number) > already, 1_800_000, 500);
      const synced = db.prepare('SELECT count(*) FROM base_documents').pluck().get() as number;
      db.close();
      const roundMs = performance.now() - started;
      return {
        documents: ENTITIES.companies * perEntity * 2,
        synced,
        hwm: memoryOf(daemon.pid).hwm,
        roundMs,
      };
    } finally {
      await daemon.close();
    }
  } finally {
    await sim.close();
  }
}

async function idleNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)']);
  await sleep(1000);
  const rss = memoryOf(child.pid!).hwm;
  child.kill();
  await once(child, 'exit');
  return rss;
}

/** Least-squares slope of peak against documents, per 10,000 (null from fewer than 2 sizes). */
function slopePerTenThousand(peaks: readonly Peak[]): number | null {
  const n = peaks.length;
  if (n < 2) return null;
  const mx = peaks.reduce((s, p) => s + p.documents, 0) / n;
  const my = peaks.reduce((s, p) => s + p.hwm, 0) / n;
  const slope =
    peaks.reduce((s, p) => s + (p.documents - mx) * (p.hwm - my), 0) /
    peaks.reduce((s, p) => s + (p.documents - mx) ** 2, 0);
  return slope * 10_000;
}

export async function memorySlope(): Promise<BenchResult> {
  const floor = await idleNodeRss();
  const measure = async (what: string, sizes: number[], seeded: boolean) => {
    const peaks: Peak[] = [];
    for (const size of sizes) {
      peaks.push(await peakOfRound(size, seeded));
      process.stderr.write(
        `bench 10: ${what} of ${peaks.at(-1)!.documents} documents: ${MB(peaks.at(-1)!.hwm)}\n`,
      );
    }
    return peaks;
  };
  const start = await measure('start round', START_SIZES, true);
  const initial = await measure('first sync', INITIAL_SIZES, false);
  const bench = '10 memory by firm size';
  const row = (what: string, p: Peak) => ({
    bench,
    measure: `peak RSS, ${what} of ${p.documents.toLocaleString('en')} documents (${seconds(p.roundMs)}; ${p.synced.toLocaleString('en')} in step after)`,
    figure: MB(p.hwm),
    floor: MB(floor),
    target: '-',
    verdict: 'info' as const,
  });
  // The verdict is the peak measured at the largest size, which is 100,000 unless overridden.
  const summary = (what: string, peaks: readonly Peak[]) => {
    const largest = peaks.at(-1)!;
    const slope = slopePerTenThousand(peaks);
    return {
      bench,
      measure: `${what}: slope per 10,000 documents; peak at ${largest.documents.toLocaleString('en')}`,
      figure: `${slope === null ? '-' : MB(slope)}; ${MB(largest.hwm)}`,
      floor: MB(floor),
      target: `< ${MB(TARGET)} at 100,000`,
      verdict: verdict(largest.documents >= 100_000 && largest.hwm < TARGET),
    };
  };
  return {
    rows: [
      ...start.map((p) => row('start round', p)),
      summary('start round', start),
      ...initial.map((p) => row('first sync', p)),
      summary('first sync', initial),
    ],
    notes: [
      `1,000 entities (500 companies, 500 trusts) with one tiny attachment per document; the simulator in its own process with no rate limit. Start round: the store seeded in step (bench/lib/seed-synced-store.ts), the daemon at 100 requests/s. First sync: an empty store, the daemon at ${INITIAL_RATE} requests/s (30 times the service's rate, so a run takes minutes rather than hours; what the store remembers of its own writes is kept 30 s, so a faster run holds more of them than a real first sync, a few MB at this pace). Peak: VmHWM of the daemon once its round's cycle row is finished. Floor: an idle \`node -e\` process.`,
    ],
  };
}
