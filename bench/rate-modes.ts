/**
 * Bench 16: the request governor against each way a gateway counts (issue 35). A first sync
 * (`docsync run --once`, a process of its own) of a small firm, docsync told 10 requests a
 * second, against the simulator counting its limit in one mode at a time: a sliding second by
 * arrival, calendar seconds, a token bucket with a burst of two; each request's arrival delayed
 * by up to ARRIVAL_JITTER_MS at random, as a network would. The limit is 10 (known) or 6 (hidden:
 * docsync must find it from the 429s). Measured from the simulator's counts: the 429s, and the
 * rate of the requests it let through, first to last answer. Baseline, in the same run: the same
 * with docsync built from BASELINE_COMMIT (before the governor: a 1,040 ms window allowing half
 * of it at once, a request counted when it got its socket, a 429 pausing every request).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RateMode } from '../src/simulator/index.js';
import { buildAt } from './lib/baseline-build.js';
import { CLI } from './lib/daemon-process.js';
import { type BenchResult, type ResultRow, verdict } from './lib/result.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { scratch } from './lib/temp.js';

/** main before the request governor. */
const BASELINE_COMMIT = '977d8915094c2c44238ce481ab7652768aafcd57';
const CONFIGURED = 10;
const HIDDEN = 6;
const ARRIVAL_JITTER_MS = 20;
const MODES: readonly RateMode[] = ['sliding', 'calendar', 'bucket'];
const FIRM = {
  companies: 15,
  trusts: 15,
  documentsPerEntity: 2,
  attachmentsPerDocument: 1,
  attachmentBytes: 1024,
  seed: 14,
};

interface Run {
  readonly requests: number;
  readonly tooMany: number;
  /** Requests let through per second, first to last answer. */
  readonly rate: number;
  readonly exit: number | null;
}

interface SimTimes {
  readonly api: {
    readonly byRoute: Record<string, number>;
    readonly total: number;
    readonly firstAt: number | null;
    readonly lastAt: number | null;
  };
}

/** A first sync by `cli` against a fresh simulator allowing `limit` a second by `mode`. */
async function firstSync(cli: string, mode: RateMode, limit: number, label: string): Promise<Run> {
  const sim = await startSimProcess({
    seed: FIRM,
    rateLimitPerSecond: limit,
    rateModes: [mode],
    arrivalJitterMs: ARRIVAL_JITTER_MS,
  });
  try {
    const dir = scratch(`rate-modes-${label}`);
    mkdirSync(dir, { recursive: true });
    const config = path.join(dir, 'docsync.json');
    writeFileSync(config, JSON.stringify(configFor(sim, dir)));
    await sim.resetCounters();
    const child = spawn(process.execPath, [cli, 'run', '--once', '--config', config], {
      env: { ...process.env, DOCSYNC_REFRESH_TOKEN: await sim.mintRefreshToken() },
      stdio: 'ignore',
    });
    const [exit] = (await once(child, 'exit')) as [number | null];
    const { api } = await sim.admin<SimTimes>('GET', '/counters');
    const tooMany = Object.entries(api.byRoute)
      .filter(([route]) => route.endsWith(' 429'))
      .reduce((n, [, count]) => n + count, 0);
    const spanMs = (api.lastAt ?? 0) - (api.firstAt ?? 0);
    const passed = api.total - tooMany;
    return {
      requests: api.total,
      tooMany,
      rate: spanMs > 0 ? (passed - 1) / (spanMs / 1000) : 0,
      exit,
    };
  } finally {
    await sim.close();
  }
}

function configFor(sim: SimProcess, dir: string) {
  return {
    service: {
      baseUrl: sim.apiUrl,
      webUrl: sim.webUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      linkHosts: [sim.linkUrl],
    },
    store: { root: path.join(dir, 'documents') },
    state: { path: path.join(dir, 'state', 'docsync.db') },
    queue: { requestsPerSecond: CONFIGURED, concurrency: 4 },
    webhook: { enabled: false },
    status: { enabled: false },
    log: { level: 'warn' },
  };
}

const share = (run: Run) =>
  `${run.tooMany} of ${run.requests} (${((100 * run.tooMany) / Math.max(1, run.requests)).toFixed(1)} %)`;

export async function rateModes(): Promise<BenchResult> {
  const baselineCli = buildAt(BASELINE_COMMIT);
  const rows: ResultRow[] = [];
  for (const mode of MODES) {
    for (const limit of [CONFIGURED, HIDDEN]) {
      const label = `${mode}-${limit}`;
      const today = await firstSync(CLI, mode, limit, `${label}-today`);
      const before = await firstSync(baselineCli, mode, limit, `${label}-baseline`);
      process.stderr.write(`bench 16 ${label}: ${JSON.stringify({ today, before })}\n`);
      const known = limit === CONFIGURED;
      const bench = `15 rate modes, ${mode}`;
      const what = known
        ? `limit known (${limit}/s)`
        : `limit hidden (${limit}/s, told ${CONFIGURED})`;
      rows.push(
        {
          bench,
          measure: `${what}: \`run --once\` exit code (3: some requests failed for good)`,
          figure: String(today.exit),
          floor: String(before.exit),
          target: '0',
          verdict: verdict(today.exit === 0),
        },
        {
          bench,
          measure: `${what}: 429 answers`,
          figure: share(today),
          floor: share(before),
          target: known ? '0' : '< 2 % (a handful, not a storm)',
          verdict: verdict(known ? today.tooMany === 0 : today.tooMany / today.requests < 0.02),
        },
        {
          bench,
          measure: `${what}: requests let through per second`,
          figure: `${today.rate.toFixed(2)}/s`,
          floor: `${before.rate.toFixed(2)}/s`,
          target: 'about the floor: a first sync is not a backlog',
          verdict: 'info' as const,
        },
      );
    }
  }
  return {
    rows,
    notes: [
      `A first sync (\`docsync run --once\`, its own process) of ${FIRM.companies} companies and ${FIRM.trusts} trusts × ${FIRM.documentsPerEntity} documents × ${FIRM.attachmentsPerDocument} attachment, \`queue.requestsPerSecond: ${CONFIGURED}\`, concurrency 4, against a fresh simulator (its own process) counting its limit in one mode (\`--rate-mode\`): sliding (any 1,000 ms by arrival), calendar (each second of the clock), bucket (a token bucket of 2 refilled at the limit); each request delayed by up to ${ARRIVAL_JITTER_MS} ms at random before it is counted (\`--arrival-jitter\`). The limit is ${CONFIGURED}/s (known) or ${HIDDEN}/s (hidden). Figures from the simulator's counts: 429s of all requests; requests let through, (n − 1) over the first to the last answer.`,
      `Floor: the same with docsync built from ${BASELINE_COMMIT.slice(0, 7)} (before the governor), against a fresh simulator seeded alike, in the same run.`,
    ],
  };
}
