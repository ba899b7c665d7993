/**
 * Bench 18: a stop at any moment of the first sync of a 5,000-entity firm, on a loaded machine.
 * A newcomer starts docsync on an empty folder and stops it (systemd's SIGTERM, a terminal's
 * Ctrl-C) whenever they like: each stop must end the process within 2 s with exit 0, and the
 * next start must carry on with nothing lost. The daemon runs on one store throughout, each
 * start taking up where the last stop left it, while two busy loops keep both cores loaded.
 * At the end a catch-up at a high rate (`--once`) must leave every document of the service in
 * the folder, and the service with the documents it had (no duplicate from a stop mid-push).
 * Floor: the same stops, fewer of them, with the daemon built from BASELINE, on a simulator and
 * a store of its own; a stop it does not end in 90 s (systemd's TimeoutStopSec) is killed.
 *
 * `BENCH18_STOPS` (default 10) stops of each signal, `BENCH18_BASELINE_STOPS` (default 2) of the
 * baseline's; `BENCH18_BASELINE=none` skips it; `BENCH18_SCALE` (default 1) scales the firm.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildAt } from './lib/baseline-build.js';
import { CLI, documentFolders, startDaemon } from './lib/daemon-process.js';
import { random } from './lib/random.js';
import { type BenchResult, type ResultRow, verdict } from './lib/result.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { ms, percentile, sleep } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const STOPS = Number(process.env.BENCH18_STOPS ?? 10);
const BASELINE_STOPS = Number(process.env.BENCH18_BASELINE_STOPS ?? 2);
/** main before a stop refused the queue's waiting requests and ended the catalogue's read. */
const BASELINE = process.env.BENCH18_BASELINE ?? '227855ea1ce4a41b912456281450250fedecb8d2';
const SCALE = Number(process.env.BENCH18_SCALE ?? 1);
const FIRM = {
  companies: Math.round(4_000 * SCALE),
  trusts: Math.round(1_000 * SCALE),
  documentsPerEntity: 1,
  attachmentsPerDocument: 1,
  attachmentBytes: 2_048,
  seed: 18,
};
/** A stop comes this long after the start, at random: during the start, the listing, the pulls. */
const MOMENT_MS = { min: 300, max: 60_000 };
const LIMIT_MS = 2_000;
const KILL_AFTER_MS = 90_000;

interface Stop {
  readonly signal: NodeJS.Signals;
  readonly at: number;
  readonly ms: number;
  /** The exit code; null when it was killed KILL_AFTER_MS after the signal. */
  readonly code: number | null;
  /** Entities whose documents were listed, and files downloaded, by the stop (all starts). */
  readonly listed: number;
  readonly pulled: number;
}

interface Run {
  readonly stops: readonly Stop[];
  /** Documents in the service before the catch-up and after it, folders missing after it. */
  readonly before: number;
  readonly after: number;
  readonly missing: number;
  readonly caughtUp: number | null;
}

export async function stopAnytime(): Promise<BenchResult> {
  const baselineCli = BASELINE === 'none' ? null : buildAt(BASELINE);
  const burners = [burn(), burn()];
  try {
    const today = await stopsOf(CLI, STOPS, 'today');
    const floor = baselineCli ? await stopsOf(baselineCli, BASELINE_STOPS, 'baseline') : null;
    return {
      rows: [
        row(today, floor, 'SIGTERM', 'SIGTERM to exit'),
        row(today, floor, 'SIGINT', 'Ctrl-C (SIGINT) to exit'),
        {
          bench: '18 stop at any moment',
          measure: `nothing lost: folders missing after the catch-up; service documents ${today.before} → ${today.after}`,
          figure: String(today.missing),
          floor: floor ? String(floor.missing) : '-',
          target: '0, no duplicate',
          verdict: verdict(
            today.caughtUp === 0 && today.missing === 0 && today.after === today.before,
          ),
        },
      ],
      notes: [
        `${FIRM.companies + FIRM.trusts} entities, one document each with one 2 KiB attachment, the simulator at 10 requests/s; one store throughout, each start continuing the last (startDaemon: from /healthz answering), a stop at a random moment 0.3–60 s later; two busy loops on the 2 cores. Floor: the daemon built from ${BASELINE === 'none' ? '(none: BENCH18_BASELINE=none)' : BASELINE.slice(0, 7)}, ${BASELINE_STOPS} stops of each signal, killed if not gone 90 s after the signal.`,
        `Today: ${describe(today)}`,
        ...(floor ? [`Floor: ${describe(floor)}`] : []),
      ],
    };
  } finally {
    for (const b of burners) b.kill();
  }
}

async function stopsOf(cli: string, count: number, label: string): Promise<Run> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: 10 });
  try {
    const dir = scratch(`stop-anytime-${label}`);
    const pick = random(18);
    const stops: Stop[] = [];
    for (let i = 0; i < 2 * count; i++) {
      const signal: NodeJS.Signals = i % 2 === 0 ? 'SIGTERM' : 'SIGINT';
      // Both builds know `service.linkHosts`: without it the simulator's links are refused.
      const daemon = await startDaemon(sim, dir, {}, 600_000, cli, true);
      const at = Math.round(MOMENT_MS.min + pick() * (MOMENT_MS.max - MOMENT_MS.min));
      await sleep(at);
      const { api, links } = await sim.counters();
      const { ms: took, code } = await daemon.stop(signal, KILL_AFTER_MS);
      stops.push({ signal, at, ms: took, code, listed: api.listedOwners, pulled: links.requests });
      process.stderr.write(
        `  ${label}: ${signal} at ${at} ms (${api.listedOwners} entities listed, ${links.requests} files pulled): exit ${code} after ${Math.round(took)} ms\n`,
      );
    }
    const before = await documentCount(sim);
    await sim.admin('PUT', '/rate-limit', { perSecond: 0 });
    const caughtUp = await catchUp(dir, cli);
    const after = await documentCount(sim);
    const folders = documentFolders(path.join(dir, 'documents'), (d) =>
      existsSync(d) ? readdirSync(d) : [],
    );
    return { stops, before, after, missing: before - folders.size, caughtUp };
  } finally {
    await sim.close();
  }
}

function row(today: Run, floor: Run | null, signal: NodeJS.Signals, label: string): ResultRow {
  const times = (run: Run) => run.stops.filter((s) => s.signal === signal).map((s) => s.ms);
  const worst = (run: Run) => Math.max(...times(run));
  const ok = worst(today) < LIMIT_MS && today.stops.every((s) => s.code === 0);
  return {
    bench: '18 stop at any moment',
    measure: `${label}, worst of ${times(today).length} (p50 ${ms(percentile(times(today), 50))}${floor ? `; floor p50 ${ms(percentile(times(floor), 50))}` : ''})`,
    figure: ms(worst(today)),
    floor: floor ? ms(worst(floor)) : '-',
    target: '< 2 s, exit 0',
    verdict: verdict(ok),
  };
}

function describe(run: Run): string {
  const last = run.stops.at(-1);
  const each = run.stops
    .map(
      (s) =>
        `${s.signal === 'SIGTERM' ? 'T' : 'C'} ${(s.at / 1000).toFixed(1)} s → ${Math.round(s.ms)} ms`,
    )
    .join(', ');
  return `stops ${each}; exit codes ${[...new Set(run.stops.map((s) => s.code))].join(', ')} (null: killed). By the last stop the starts had listed ${last?.listed} entities' documents and pulled ${last?.pulled} files. The catch-up (\`--once\`, no limit) exited ${run.caughtUp}.`;
}

/** A busy loop in its own process: the loaded machine. */
function burn(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
}

async function documentCount(sim: SimProcess): Promise<number> {
  const state = await sim.admin<{ documents: unknown[] }>('GET', '/state');
  return state.documents.length;
}

/** `docsync run --once` on the store, at a rate the unlimited simulator takes; its exit code. */
async function catchUp(dir: string, cli: string): Promise<number | null> {
  const file = path.join(dir, 'docsync.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const fast = path.join(dir, 'docsync-once.json');
  writeFileSync(
    fast,
    JSON.stringify({ ...config, queue: { requestsPerSecond: 200, concurrency: 8 } }),
  );
  const child = spawn(process.execPath, [cli, 'run', '--once', '--config', fast], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}
