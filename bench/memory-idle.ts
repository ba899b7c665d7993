/**
 * Bench 5: the real daemon (`docsync run`) holding 100,000 synced documents with its watcher
 * running: resident memory, and CPU over one idle minute, read from /proc. The store is seeded
 * as an initial sync would leave it (bench/lib/seed-synced-store.ts) and the daemon's own start
 * cycle must then find nothing to do. After that cycle the daemon idles until V8 has given back
 * the heap the cycle grew (or at most SHRINK_WAIT_MS), then for the measured minute. Floor: an
 * idle Node process holding one fs.watch on each of the same folders, measured afterwards in the
 * same run (both at once would share the per-user inotify limit).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startDaemon } from './lib/daemon-process.js';
import { awaitShrink, inotifyWatchesOf, megabytes, sampleIdle } from './lib/proc-usage.js';
import { type BenchResult, verdict } from './lib/result.js';
import { type SeededStore, seedSyncedStore } from './lib/seed-synced-store.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { seconds, sleep, until } from './lib/stats.js';
import { scratch } from './lib/temp.js';
import { type TreeFingerprint, treeFingerprint } from './lib/tree-fingerprint.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FLOOR_CHILD = path.join(here, 'memory-idle-floor.js');
const IDLE_MS = 60_000;
/** V8's memory reducer collects after the floor's walk ~30 s later (seen with `--trace-gc`). */
const FLOOR_SETTLE_MS = 40_000;
/** V8's memory reducer gives up waiting for a quiet allocation rate 100 s after the last GC. */
const SHRINK_WAIT_MS = 130_000;
const FIRM = {
  companies: 500,
  trusts: 500,
  documentsPerEntity: 100,
  attachmentsPerDocument: 1,
  attachmentBytes: 0,
  seed: 5,
};
const RSS_TARGET = 300e6;
const CPU_TARGET = 1;
const BENCH = '5 memory, idle CPU';

interface CycleRow {
  id: number;
  finished_at: number | null;
  result: string | null;
  counts_json: string | null;
}

export async function memoryIdle(): Promise<BenchResult> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: 0 });
  try {
    const dir = scratch('memory');
    const seedStarted = performance.now();
    const seeded = await seedSyncedStore(sim, dir);
    const seedMs = performance.now() - seedStarted;
    process.stderr.write(`bench 5: seeded ${seeded.documents} documents in ${seconds(seedMs)}\n`);
    const treeBefore = treeFingerprint(seeded.root);
    const run = await idleDaemon(sim, dir);
    const treeAfter = treeFingerprint(seeded.root);
    const floor = await floorProcess(seeded.root);
    return report({ seeded, seedMs, run, floor, treeBefore, treeAfter });
  } finally {
    await sim.close();
  }
}

/** The daemon from start to its start cycle's end, then idle: the shrink wait and the minute. */
async function idleDaemon(sim: SimProcess, dir: string) {
  const cycles = new Database(path.join(dir, 'state', 'docsync.db'), { readonly: true });
  const cyclesAfter = cycles.prepare<[number], CycleRow>(
    'SELECT * FROM cycles WHERE id > ? ORDER BY id',
  );
  const seededCycle = (cycles.prepare('SELECT max(id) FROM cycles').pluck().get() as number) ?? 0;
  await sim.resetCounters();
  const schedule = quietSchedule(new Date());
  const started = performance.now();
  // 100/s rather than the default 10/s: the start cycle's 1,000 listings then take ~10 s, not
  // ~100 s; the pace of requests does not matter once the daemon is idle.
  const overrides = { schedule, queue: { requestsPerSecond: 100 } };
  const daemon = await startDaemon(sim, dir, overrides, 300_000);
  try {
    let first: CycleRow | undefined;
    await until(
      () => {
        first = cyclesAfter.all(seededCycle).find((c) => c.finished_at !== null);
        return first !== undefined;
      },
      300_000,
      200,
    );
    const startMs = performance.now() - started;
    process.stderr.write(`bench 5: daemon up, start cycle done in ${seconds(startMs)}\n`);
    const afterCycle = await awaitShrink(daemon.pid, 0.2, SHRINK_WAIT_MS);
    if (afterCycle.shrank) await sleep(5000);
    const idle = await sampleIdle(daemon.pid, IDLE_MS);
    const lateCycles = cyclesAfter.all(first!.id).length;
    const watches = inotifyWatchesOf(daemon.pid);
    const statusUrl = /"url":"([^"]+)","msg":"status page listening"/.exec(daemon.output())?.[1];
    const metrics = await (await fetch(`${statusUrl}/metrics`)).text();
    return {
      schedule,
      startMs,
      first: first!,
      afterCycle,
      idle,
      lateCycles,
      watches,
      mode: /docsync_watcher_mode\{mode="scanning"\} 1/.test(metrics) ? 'scanning' : 'events',
      limitHit: daemon.output().includes('WATCH LIMIT REACHED'),
      requests: await startCycleRequests(sim),
    };
  } finally {
    await daemon.close();
    cycles.close();
  }
}

function report(input: {
  seeded: SeededStore;
  seedMs: number;
  run: Awaited<ReturnType<typeof idleDaemon>>;
  floor: Awaited<ReturnType<typeof floorProcess>>;
  treeBefore: TreeFingerprint;
  treeAfter: TreeFingerprint;
}): BenchResult {
  const { seeded, run, floor } = input;
  const { idle, afterCycle, requests } = run;
  const counts = JSON.parse(run.first.counts_json ?? '{}') as Record<string, number>;
  const unchanged = input.treeAfter.sha256 === input.treeBefore.sha256;
  const quiet =
    run.first.result === 'ok' &&
    counts.actions === 0 &&
    counts.documentsFailed === 0 &&
    requests.lists === seeded.entities &&
    requests.details === 0 &&
    requests.links === 0 &&
    requests.writes === 0 &&
    unchanged;
  const count = (n: number) => n.toLocaleString('en-US');
  return {
    rows: [
      {
        bench: BENCH,
        measure: `RSS, ${count(seeded.documents)} documents, watcher on, idle minute (max)`,
        figure: megabytes(idle.maxRss),
        floor: megabytes(floor.idle.maxRss),
        target: '< 300 MB',
        verdict: verdict(idle.maxRss < RSS_TARGET),
      },
      {
        bench: BENCH,
        measure: `RSS after the start cycle, before V8 shrank its heap (max, ${seconds(afterCycle.waitedMs)})`,
        figure: megabytes(afterCycle.maxRss),
        floor: '-',
        target: '-',
        verdict: 'info',
      },
      {
        bench: BENCH,
        measure: 'peak RSS since start (VmHWM: watcher walk, start cycle)',
        figure: megabytes(idle.hwm),
        floor: megabytes(floor.idle.hwm),
        target: '-',
        verdict: 'info',
      },
      {
        bench: BENCH,
        measure: `idle CPU over the minute (utime + stime)`,
        figure: `${idle.cpuPercent.toFixed(2)} %`,
        floor: `${floor.idle.cpuPercent.toFixed(2)} %`,
        target: '< 1 %',
        verdict: verdict(idle.cpuPercent < CPU_TARGET),
      },
      {
        bench: BENCH,
        measure: 'watcher mode; inotify watches held',
        figure: `${run.mode}; ${count(run.watches)}`,
        floor: count(floor.watches),
        target: 'events',
        verdict: verdict(run.mode === 'events'),
      },
      {
        bench: BENCH,
        measure: 'start cycle on the seeded store: list requests, details, actions',
        figure: `${requests.lists}, ${requests.details}, ${counts.actions ?? '?'}`,
        floor: `${seeded.entities}, 0, 0`,
        target: 'one list per entity, no work',
        verdict: verdict(quiet),
      },
    ],
    notes: [
      `Firm: ${seeded.entities} entities (${FIRM.companies} companies, ${FIRM.trusts} trusts) × ${FIRM.documentsPerEntity} documents with one tiny attachment (a minimal PDF) each: ${count(seeded.documents)} documents, ${count(seeded.directories)} entity and document folders, ${count(seeded.files)} files in the document folders; simulator in its own process, no rate limit.`,
      `Seeding (${seconds(input.seedMs)}) instead of a real initial sync (~20 min at bench 1's pace), deciding everything with the real code and skipping only durability and the details requests: \`refreshEntities\` and the client make the entity folders, rows and status types; the real \`planEntity\` plans each entity from its real listing, the details answered from the simulator's state dump through the client's own parser; each planned \`pull-new-document\` is carried out with the store's naming (\`documentFolderName\`, \`pickFreeName\`), \`applyActionResult\` for the base row and \`metaFromBase\` + \`formatDocumentMeta\` for \`.document.json\`, the bytes being the simulator's (sha256 checked); base rows, cursors (\`cursorFor\`), the initial-sync flag and a finished cycle go in one transaction; files are written without fsync.`,
      `The daemon: \`docsync run\` (dist/cli.js, child process) with the watcher, the status page and default settings except \`queue.requestsPerSecond: 100\` (so the start cycle's listings take seconds) and a schedule that cannot fire during the run: \`${run.schedule.cron}\` (hourly, 30 minutes from the start) and \`${run.schedule.fullReconcileCron}\` (daily, 12 hours away); webhooks off. Up with its start cycle done in ${seconds(run.startMs)}.`,
      `The start cycle (a full reconcile) ${quiet ? 'was quiet' : 'was NOT quiet'}: simulator counters ${JSON.stringify(requests.byRoute)}, ${requests.links} link downloads; cycle result ${run.first.result}, counts ${run.first.counts_json}; the tree under the root (every path, size and mtime; ${count(input.treeAfter.entries)} entries) ${unchanged ? 'unchanged' : 'CHANGED'} from before the start to after the stop. Cycles started while idle: ${run.lateCycles}.`,
      `Memory: after the start cycle, VmRSS every second until it fell by a fifth (${afterCycle.shrank ? `after ${seconds(afterCycle.waitedMs)}` : `it did not within ${seconds(afterCycle.waitedMs)}`}; highest ${megabytes(afterCycle.maxRss)}, CPU ${afterCycle.cpuPercent.toFixed(2)} % meanwhile): a quiet full reconcile of 100,000 documents grows V8's heap (its garbage reaches the old generation), which Node 20's V8 gives back when its memory reducer runs: in an idle process, with no GC to tell it allocation has stopped, only on its watchdog, ~100 s after the last full GC (seen with \`--trace-gc\`). Then${afterCycle.shrank ? ' 5 s later' : ''} the measured minute: VmRSS from \`/proc/<pid>/status\` every second (the row shows the highest; last ${megabytes(idle.lastRss)}), VmHWM at its end, CPU as utime + stime from \`/proc/<pid>/stat\` over ${seconds(idle.windowMs)} as a share of one core (all threads; nothing talks to the daemon meanwhile).`,
      `Watcher mode from the daemon's \`/metrics\` after the minute (${run.limitHit ? 'the log reported WATCH LIMIT REACHED' : 'no watch-limit warning in the log'}); inotify watches counted in \`/proc/<pid>/fdinfo\` (fs.inotify.max_user_watches is ${maxUserWatches()}).`,
      `Floor: \`node --expose-gc bench/memory-idle-floor.js\` holding one \`fs.watch\` on each folder of the same tree (root, Companies/, Trusts/, entity and document folders: ${count(floor.watches)}${floor.error ? `, stopped by ${floor.error}` : ''}), the garbage of its walk collected, then idle; sampled the same way for ${seconds(floor.idle.windowMs)} after the daemon stopped, from ${seconds(FLOOR_SETTLE_MS)} after its walk (V8's memory reducer collects ~30 s after it, ~0.2 s of CPU that would otherwise fall into the minute).`,
    ],
  };
}

/** Hourly at a minute 30 minutes away, the full reconcile 12 hours away: nothing fires. */
function quietSchedule(now: Date) {
  const minute = (now.getMinutes() + 30) % 60;
  const hour = (now.getHours() + 12) % 24;
  return { cron: `${minute} * * * *`, fullReconcileCron: `${minute} ${hour} * * *` };
}

async function startCycleRequests(sim: SimProcess) {
  const counters = await sim.counters();
  const byRoute: Record<string, number> = {};
  let lists = 0;
  let details = 0;
  let writes = 0;
  for (const [route, n] of Object.entries(counters.api.byRoute)) {
    if (route.includes('/oauth/')) continue;
    byRoute[route] = n;
    if (/^GET \/(companies|trusts)\/\{ownerId\}\/documents \d+$/.test(route)) lists += n;
    else if (/\/documents\/\{documentId\}/.test(route)) details += n;
    if (!route.startsWith('GET ')) writes += n;
  }
  return { byRoute, lists, details, writes, links: counters.links.requests };
}

async function floorProcess(root: string) {
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', FLOOR_CHILD, root], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const setup = JSON.parse(line.toString().split('\n')[0]!) as {
      watches: number;
      error: string | null;
    };
    await sleep(FLOOR_SETTLE_MS);
    return { ...setup, idle: await sampleIdle(child.pid!, IDLE_MS) };
  } finally {
    child.stdin!.end();
    if (child.exitCode === null) await once(child, 'exit');
  }
}

function maxUserWatches(): string {
  try {
    return readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}
