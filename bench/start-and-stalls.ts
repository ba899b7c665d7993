/**
 * Bench 12: local work found at the start, and the event loop during scan passes (issue 28), at
 * 5,000 entities (3,000 companies, 2,000 trusts) and 10 requests a second, the daemon's defaults
 * otherwise (settle 3 s):
 * - Files left by a SIGTERM: FILES files written into one document folder of a running daemon,
 *   SIGTERM once some are up, the daemon started again: the time from the start to the first and
 *   to the last of the files left in the service, and what `docsync status` says meanwhile.
 *   Baseline, in the same run: the same number of files written into another document folder
 *   of the running daemon (the watcher's path), timed the same way from the write.
 * - Event-loop lag: the restarted daemon runs MINUTES (its start round, scan passes every
 *   SCAN_SECONDS); /metrics is read every second (the delay since the previous read). Figure:
 *   the seconds a scan pass ran (from its log line); baseline: the other seconds of the same run.
 *
 * Parameters (environment): BENCH12_MINUTES (default 20, the run), BENCH12_SCAN_SECONDS
 * (default 300, the default `watcher.scanIntervalSeconds`), BENCH12_DOCUMENTS per entity (default
 * 2: 10,000 documents; 20 gives 100,000).
 */
import { execFile } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLI, type DaemonProcess, documentFolders, startDaemon } from './lib/daemon-process.js';
import { rateLimitBody, rateModesSaid } from './lib/rate-modes-env.js';
import { type BenchResult, verdict } from './lib/result.js';
import { seedSyncedStore } from './lib/seed-synced-store.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { ms, percentile, seconds, sleep, until } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const RATE = 10;
const SETTLE_MS = 3_000; // the default settleSeconds
const FILES = 300;
/** Uploads made before the SIGTERM: the stop came after 58 of 300. */
const UP_BEFORE_STOP = 60;
const MINUTES = Number(process.env.BENCH12_MINUTES ?? 20);
const SCAN_SECONDS = Number(process.env.BENCH12_SCAN_SECONDS ?? 300);
const DOCUMENTS = Number(process.env.BENCH12_DOCUMENTS ?? 2);
const FIRM = {
  companies: 3000,
  trusts: 2000,
  documentsPerEntity: DOCUMENTS,
  attachmentsPerDocument: 1,
  attachmentBytes: 0, // tiny PDFs: what the seeded store can write without downloading
  seed: 28,
};

type Dump = { documents: { id: string; attachments: { name: string }[] }[] };

/** Attachments the service has accepted since its counters were reset. */
async function uploads(sim: SimProcess): Promise<number> {
  return Object.entries((await sim.counters()).api.byRoute)
    .filter(([route]) => /^POST \S*\/attachments 20\d$/.test(route))
    .reduce((n, [, count]) => n + count, 0);
}

/** How many of `names` the service holds on document `id` (one state dump: it is large). */
async function held(sim: SimProcess, id: string, names: readonly string[]): Promise<string[]> {
  const doc = (await sim.admin<Dump>('GET', '/state')).documents.find((d) => d.id === id)!;
  return doc.attachments.map((a) => a.name).filter((n) => names.includes(n));
}

/** Resolves once `expected` uploads are in, with the times from `from` to the first and the last. */
async function timeUploads(
  sim: SimProcess,
  expected: number,
  from: number,
): Promise<{ firstMs: number; lastMs: number }> {
  let firstMs = Number.NaN;
  await until(
    async () => {
      const n = await uploads(sim);
      if (n > 0 && Number.isNaN(firstMs)) firstMs = performance.now() - from;
      return n >= expected;
    },
    600_000,
    100,
  );
  return { firstMs, lastMs: performance.now() - from };
}

const fileNames = (label: string) =>
  Array.from({ length: FILES }, (_, i) => `${label} ${String(i).padStart(3, '0')}.pdf`);

function writeFiles(folder: string, names: readonly string[]): void {
  for (const name of names) writeFileSync(path.join(folder, name), `%PDF-1.4 ${name}`);
}

interface LagSecond {
  readonly at: number;
  readonly maxMs: number;
}

/** Reads the daemon's lag every second for `minutes`. */
async function sampleLag(statusUrl: string, minutes: number): Promise<LagSecond[]> {
  const samples: LagSecond[] = [];
  const end = Date.now() + minutes * 60_000;
  while (Date.now() < end) {
    await sleep(1000);
    const text = await (await fetch(`${statusUrl}/metrics`)).text();
    const max = /^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1];
    if (max !== undefined) samples.push({ at: Date.now(), maxMs: Number(max) * 1000 });
  }
  return samples;
}

/**
 * The `n` worst seconds, each with what the daemon logged in it (its messages, counted): what
 * ran when the loop stalled, so a stall outside the scan passes can be traced to its job.
 */
function worstSeconds(lag: readonly LagSecond[], output: string, started: number, n = 5): string {
  const lines = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time: string | number; msg?: string });
  const at = (time: string | number) => (typeof time === 'number' ? time : Date.parse(time));
  return [...lag]
    .sort((a, b) => b.maxMs - a.maxMs)
    .slice(0, n)
    .map((second) => {
      const said = new Map<string, number>();
      for (const line of lines) {
        const t = at(line.time);
        if (t > second.at - 1200 && t <= second.at && line.msg) {
          said.set(line.msg, (said.get(line.msg) ?? 0) + 1);
        }
      }
      const what = [...said].map(([msg, count]) => (count > 1 ? `${msg} ×${count}` : msg));
      return `${ms(second.maxMs)} at ${Math.round((second.at - started) / 1000)} s (${what.join('; ') || 'nothing logged'})`;
    })
    .join(', ');
}

/** The scan passes the daemon logged: [start, end] in epoch ms. */
function passesOf(output: string): [number, number][] {
  return output
    .split('\n')
    .filter((line) => line.includes('"msg":"folder scan pass'))
    .map((line) => JSON.parse(line) as { time: string; ms: number })
    .map((p) => {
      const end = Date.parse(p.time);
      return [end - p.ms, end];
    });
}

async function statusLine(dir: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    CLI,
    'status',
    '--config',
    path.join(dir, 'docsync.json'),
  ]);
  return (
    stdout
      .split('\n')
      .filter((l) => /^(Local changes waiting|Pending pushes)/.test(l))
      .join('; ') || '(no line)'
  );
}

export async function startAndStalls(): Promise<BenchResult> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: 0 });
  const dir = scratch('start');
  let daemon: DaemonProcess | undefined;
  try {
    const seeded = await seedSyncedStore(sim, dir);
    await sim.admin('PUT', '/rate-limit', rateLimitBody(RATE));
    const config = {
      queue: { requestsPerSecond: RATE, concurrency: 4 },
      watcher: { scanIntervalSeconds: SCAN_SECONDS },
    };
    const docs = (await sim.admin<Dump>('GET', '/state')).documents;
    const folders = documentFolders(seeded.root, (d) => readdirSync(d));
    const baselineDoc = docs[0]!;
    const stopDoc = docs.at(-1)!;

    // Baseline: the files dropped into a running daemon's folder.
    daemon = await startDaemon(sim, dir, config, 600_000);
    await sleep(5_000); // past the start's first look at every folder
    await sim.resetCounters();
    const baselineNames = fileNames('running');
    const baselineStarted = performance.now();
    writeFiles(folders.get(baselineDoc.id)!, baselineNames);
    const baseline = await timeUploads(sim, FILES, baselineStarted);

    // The SIGTERM in the middle of a push.
    await sim.resetCounters();
    const stopNames = fileNames('stopped');
    writeFiles(folders.get(stopDoc.id)!, stopNames);
    await until(async () => (await uploads(sim)) >= UP_BEFORE_STOP, 600_000, 50);
    await daemon.close();
    daemon = undefined;
    const left = FILES - (await held(sim, stopDoc.id, stopNames)).length;

    // The start after it.
    await sim.resetCounters();
    const restarted = performance.now();
    const starting = startDaemon(sim, dir, config, 600_000);
    const timing = timeUploads(sim, left, restarted);
    daemon = await starting;
    // What `docsync status` says while the files wait: read until it counts them or they are up.
    let uploaded = false;
    void timing.then(() => {
      uploaded = true;
    });
    let status = await statusLine(dir);
    while (!uploaded && !/Local changes waiting: \d/.test(status)) {
      await sleep(500);
      status = await statusLine(dir);
    }
    const statusAtMs = performance.now() - restarted;
    const afterStop = await timing;
    const metricsText = await (await fetch(`${statusUrlOf(daemon)}/metrics`)).text();
    const roundLeft = Number(/docsync_poll_round_entities_left (\d+)/.exec(metricsText)?.[1]);
    const inService = await held(sim, stopDoc.id, stopNames);

    // Event-loop lag over the rest of the run.
    const lagFrom = Date.now();
    const lag = await sampleLag(statusUrlOf(daemon), MINUTES);
    const worst = worstSeconds(lag, daemon.output(), lagFrom);
    process.stderr.write(`bench 12: the worst seconds: ${worst}\n`);
    const passes = passesOf(daemon.output());
    const inPass = (at: number) => passes.some(([s, e]) => at - 1000 < e && at > s);
    const during = lag.filter((s) => inPass(s.at)).map((s) => s.maxMs);
    const outside = lag.filter((s) => !inPass(s.at)).map((s) => s.maxMs);
    const all = lag.map((s) => s.maxMs);
    const passMs = passes.map(([s, e]) => e - s);

    const bench = '12 start and stalls';
    const entities = FIRM.companies + FIRM.trusts;
    const p99max = (v: number[]) =>
      v.length === 0
        ? '-'
        : `${ms(percentile(v, 99))} / ${ms(Math.max(...v))}; ${v.filter((x) => x >= 50).length} of ${v.length} s ≥ 50 ms`;
    return {
      rows: [
        {
          bench,
          measure: `files left by a SIGTERM (${left} of ${FILES}): start → first in the service (floor: the same files written into the running daemon's folder, write → first)`,
          figure: seconds(afterStop.firstMs),
          floor: seconds(baseline.firstMs),
          target: `≤ settle + 5 s = ${seconds(SETTLE_MS + 5000)}`,
          verdict: verdict(afterStop.firstMs <= SETTLE_MS + 5000),
        },
        {
          bench,
          measure: `… start → the last of them in the service (floor: write → last, ${FILES} files); entities the start round still had to list then`,
          figure: `${seconds(afterStop.lastMs)}; ${roundLeft} of ${entities} left`,
          floor: seconds(baseline.lastMs),
          target: 'before the round reaches the entity; ≤ floor + 5 s',
          verdict: verdict(afterStop.lastMs <= baseline.lastMs + 5000 && roundLeft > 0),
        },
        {
          bench,
          measure:
            '… each once in the service; `docsync status` while they wait (read every 0.5 s from /healthz until it counts them)',
          figure: `${inService.length} of ${FILES}; at ${seconds(statusAtMs)}: ${status}`,
          floor: '-',
          target: `${FILES}; local changes waiting shown`,
          verdict: verdict(
            inService.length === FILES &&
              new Set(inService).size === FILES &&
              /Local changes waiting: \d/.test(status),
          ),
        },
        {
          bench,
          measure: `event-loop lag p99 / max of each second's worst, the seconds a scan pass ran (${passes.length} passes of ${seconds(Math.min(...passMs))}–${seconds(Math.max(...passMs))}; floor: the other seconds)`,
          figure: p99max(during),
          floor: p99max(outside),
          target: 'p99 < 50 ms, max < 100 ms',
          verdict: verdict(
            during.length > 0 && percentile(during, 99) < 50 && Math.max(...during) < 100,
          ),
        },
        {
          bench,
          measure: `event-loop lag p99 / max over the whole run (${MINUTES} min after the start, ${all.length} seconds)`,
          figure: p99max(all),
          floor: '-',
          target: 'p99 < 50 ms, max < 100 ms',
          verdict: verdict(percentile(all, 99) < 50 && Math.max(...all) < 100),
        },
      ],
      notes: [
        `A store of ${entities} entities (${FIRM.companies} companies, ${FIRM.trusts} trusts; ${DOCUMENTS} documents each, one tiny attachment each: ${(entities * DOCUMENTS).toLocaleString('en')} documents) seeded as a first sync leaves it (bench/lib/seed-synced-store.ts); the simulator limited to ${RATE} requests a second per token, ${rateModesSaid()}, the daemon at the same rate, settle 3 s (the default), scan passes every ${SCAN_SECONDS} s.`,
        `Files left by a SIGTERM: ${FILES} files written into one document folder of the running daemon; SIGTERM once the simulator has accepted ${UP_BEFORE_STOP} uploads; the daemon started again at once. Timed from the start (spawning the process) until the simulator has accepted the first and the last of the uploads left (its counters); \`docsync status\` read a second after the daemon answered /healthz; the round's entities left from /metrics when the last was up. Baseline: ${FILES} files written into another document folder of the same daemon before the stop, timed from the write. The last check dumps the simulator's state: each file in the service once.`,
        `Event-loop lag: after that, the daemon runs ${MINUTES} min (BENCH12_MINUTES; the issue's run is 20) with its start round; its /metrics read every second: nodejs_eventloop_lag_max_seconds, the worst delay of the loop's 200 ms timer since the previous read (src/web/process-metrics.ts). The p99 is over those per-second worsts, an upper bound on the p99 of all delays. A second counts as during a scan pass when it overlaps one (the daemon's log line "folder scan pass", its duration). BENCH12_SCAN_SECONDS sets the interval (default 300, the daemon's), BENCH12_DOCUMENTS the documents per entity (20: 100,000 documents).`,
        `The worst seconds of the lag run (seconds after it began), with what the daemon logged in each: ${worst}.`,
      ],
    };
  } finally {
    await daemon?.close();
    await sim.close();
  }
}

function statusUrlOf(daemon: DaemonProcess): string {
  return /"url":"([^"]+)","msg":"status page listening"/.exec(daemon.output())![1]!;
}
