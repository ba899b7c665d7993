/**
 * Bench 5: the real daemon (`docsync run`) holding 100,000 synced documents with its watcher
 * running: resident memory, and CPU over one idle minute, read from /proc. The store is seeded
 * as an initial sync would leave it (bench/lib/seed-synced-store.ts) and the daemon's own start
 * cycle must then find nothing to do. Floor: an idle Node process holding one fs.watch on each
 * of the same folders, measured afterwards in the same run (both at once would share the
 * per-user inotify limit).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startDaemon } from './lib/daemon-process.js';
import { inotifyWatchesOf, megabytes, sampleIdle } from './lib/proc-usage.js';
import { type BenchResult, verdict } from './lib/result.js';
import { seedSyncedStore } from './lib/seed-synced-store.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { seconds, sleep, until } from './lib/stats.js';
import { scratch } from './lib/temp.js';
import { treeFingerprint } from './lib/tree-fingerprint.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FLOOR_CHILD = path.join(here, 'memory-idle-floor.js');
const IDLE_MS = 60_000;
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

interface CycleRow {
  id: number;
  trigger: string;
  full_reconcile: number;
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
    const stateFile = path.join(dir, 'state', 'docsync.db');
    const cycles = new Database(stateFile, { readonly: true, fileMustExist: true });
    const cyclesAfter = cycles.prepare<[number], CycleRow>(
      'SELECT * FROM cycles WHERE id > ? ORDER BY id',
    );
    const seededCycle = (cycles.prepare('SELECT max(id) FROM cycles').pluck().get() as number) ?? 0;
    const treeBefore = treeFingerprint(seeded.root);

    await sim.resetCounters();
    const schedule = quietSchedule(new Date());
    const started = performance.now();
    const daemon = await startDaemon(
      sim,
      dir,
      // 100/s rather than the default 10/s: the start cycle's 1,000 listings then take ~10 s,
      // not ~100 s; the pace of requests does not matter once the daemon is idle.
      { schedule, queue: { requestsPerSecond: 100 } },
      300_000,
    );
    let first: CycleRow | undefined;
    let idle: Awaited<ReturnType<typeof sampleIdle>>;
    let lateCycles: CycleRow[];
    let watches: number;
    let metrics: string;
    try {
      await until(
        () => {
          first = cyclesAfter.all(seededCycle).find((c) => c.finished_at !== null);
          return first !== undefined;
        },
        300_000,
        200,
      );
      const startMs = performance.now() - started;
      await sleep(2000);
      idle = await sampleIdle(daemon.pid, IDLE_MS);
      lateCycles = cyclesAfter.all(first!.id);
      watches = inotifyWatchesOf(daemon.pid);
      const statusUrl = /"url":"([^"]+)","msg":"status page listening"/.exec(daemon.output())![1];
      metrics = await (await fetch(`${statusUrl}/metrics`)).text();
      process.stderr.write(
        `bench 5: seeded in ${seconds(seedMs)}, daemon up and first cycle done in ${seconds(startMs)}\n`,
      );
    } finally {
      await daemon.close();
      cycles.close();
    }
    const treeAfter = treeFingerprint(seeded.root);
    const start = await startCycleRequests(sim);
    const counts = JSON.parse(first!.counts_json ?? '{}') as Record<string, number>;
    const mode = /docsync_watcher_mode\{mode="scanning"\} 1/.test(metrics) ? 'scanning' : 'events';
    const limitHit = daemon.output().includes('WATCH LIMIT REACHED');
    const floor = await floorProcess(seeded.root);

    const quiet =
      first!.result === 'ok' &&
      counts.actions === 0 &&
      counts.documentsFailed === 0 &&
      start.lists === seeded.entities &&
      start.details === 0 &&
      start.links === 0 &&
      start.writes === 0 &&
      treeAfter.sha256 === treeBefore.sha256;
    const documents = seeded.documents.toLocaleString('en-US');
    return {
      rows: [
        {
          bench: '5 memory, idle CPU',
          measure: `RSS, ${documents} documents, watcher on, idle minute (max)`,
          figure: megabytes(idle.maxRss),
          floor: megabytes(floor.idle.maxRss),
          target: '< 300 MB',
          verdict: verdict(idle.maxRss < RSS_TARGET),
        },
        {
          bench: '5 memory, idle CPU',
          measure: 'peak RSS since start (VmHWM: start, watcher walk, start cycle)',
          figure: megabytes(idle.hwm),
          floor: megabytes(floor.idle.hwm),
          target: '-',
          verdict: 'info',
        },
        {
          bench: '5 memory, idle CPU',
          measure: `idle CPU over ${seconds(idle.windowMs)} (utime + stime)`,
          figure: `${idle.cpuPercent.toFixed(2)} %`,
          floor: `${floor.idle.cpuPercent.toFixed(2)} %`,
          target: '< 1 %',
          verdict: verdict(idle.cpuPercent < CPU_TARGET),
        },
        {
          bench: '5 memory, idle CPU',
          measure: `watcher mode; inotify watches held`,
          figure: `${mode}; ${watches}`,
          floor: `${floor.watches}`,
          target: 'events',
          verdict: verdict(mode === 'events'),
        },
        {
          bench: '5 memory, idle CPU',
          measure: 'start cycle on the seeded store: list requests, details, actions',
          figure: `${start.lists}, ${start.details}, ${counts.actions ?? '?'}`,
          floor: `${seeded.entities}, 0, 0`,
          target: 'one list per entity, no work',
          verdict: verdict(quiet),
        },
      ],
      notes: [
        `Firm: ${seeded.entities} entities (${FIRM.companies} companies, ${FIRM.trusts} trusts) × ${FIRM.documentsPerEntity} documents, one tiny attachment each (a ${seeded.files - seeded.documents > 0 ? 'minimal PDF' : 'file'}): ${documents} documents, ${seeded.directories.toLocaleString('en-US')} entity and document folders, ${seeded.files.toLocaleString('en-US')} files in them besides the entity files; simulator in its own process, no rate limit.`,
        `Seeding (${seconds(seedMs)}), instead of a real initial sync (~20 min at bench 1's pace): the real code decides everything, only durability and the details requests are skipped. \`refreshEntities\` and the client make the entity folders, rows and status types; the real \`planEntity\` plans each entity from its real listing, with the details answered from the simulator's state dump through the client's own parser; each planned \`pull-new-document\` is carried out with the store's naming functions (\`documentFolderName\`, \`pickFreeName\`), \`applyActionResult\` for the base row and \`metaFromBase\` + \`formatDocumentMeta\` for \`.document.json\`, the bytes being the simulator's own (sha256 checked); base rows, cursors (\`cursorFor\`), the initial-sync flag and a finished cycle go in one transaction. Files are written without fsync.`,
        `The daemon: \`docsync run\` (dist/cli.js, child process) with the watcher, the status page and the default settings except \`queue.requestsPerSecond: 100\` (so the start cycle's listings take seconds) and a schedule that cannot fire during the run: \`${schedule.cron}\` (hourly, 30 minutes from the start) and \`${schedule.fullReconcileCron}\` (daily, 12 hours away); webhooks off. Its start cycle (a full reconcile) must be quiet — checked: simulator counters ${JSON.stringify(start.byRoute)}, ${start.links} link downloads; cycle result ${first!.result}, counts ${first!.counts_json}; tree under the root (every path, size, mtime; ${treeAfter.entries.toLocaleString('en-US')} entries) ${treeAfter.sha256 === treeBefore.sha256 ? 'unchanged' : 'CHANGED'} from before the start to after the stop. Cycles started in the idle minute: ${lateCycles.length}.`,
        `Memory: VmRSS from \`/proc/<pid>/status\` every second over the idle minute (the row shows the highest; last ${megabytes(idle.lastRss)}), VmHWM at its end. Idle CPU: utime + stime from \`/proc/<pid>/stat\` across the same ${seconds(idle.windowMs)}, starting 2 s after the start cycle finished, as a share of one core (all threads of the daemon; nothing talks to it during the minute). Watcher mode from the daemon's \`/metrics\` after the minute (${limitHit ? 'the log reported WATCH LIMIT REACHED' : 'no watch-limit warning in the log'}); inotify watches counted from \`/proc/<pid>/fdinfo\` (fs.inotify.max_user_watches is ${maxUserWatches()}).`,
        `Floor: \`node --expose-gc bench/memory-idle-floor.js\` holding one \`fs.watch\` on each folder of the same tree (root, Companies/, Trusts/, entity and document folders: ${floor.watches}${floor.error ? `, stopped by ${floor.error}` : ''}), garbage of its walk collected, then idle; sampled the same way for ${seconds(floor.idle.windowMs)} after the daemon stopped.`,
      ],
    };
  } finally {
    await sim.close();
  }
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
    await sleep(2000);
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
