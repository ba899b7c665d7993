/**
 * The request governor at the level a user reaches: `docsync run --once`, a process of its own,
 * against the simulator counting its limit in each of its modes (a sliding second, calendar
 * seconds, a token bucket with a burst of two), each request's arrival delayed at random as a
 * network would. docsync is told 10 requests a second; the simulator allows that (the limit
 * known) or 6 (a limit below it, which docsync must find from the 429s). Counts, not durations:
 * the spacing and the climb are proven to the millisecond on a virtual clock
 * (test/unit/request-governor.test.ts, test/unit/request-queue-governor.test.ts).
 *
 * The simulator counts a request when this process gets to it. On a busy machine this process
 * can stall for longer than the governor's margin for the network, and stamp two requests docsync
 * sent a spacing apart at the same time, as a network that held one back would: a 429 no pacing
 * can prevent. So with the limit known, docsync earns no 429 beyond one per such stall of the
 * simulator, counted as it runs: none at all on a machine that keeps up.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARRIVAL_MARGIN_MS, OUT_SLACK_MS } from '../../src/domain/request-governor.js';
import { RATE_MODES, type RateMode } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCliProcess } from '../helpers/run-cli.js';
import { answered } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

const CONFIGURED = 10;
const HIDDEN = 6;
const JITTER_MS = 10;
/** A stall of the simulator longer than this can crowd a second that docsync kept (above). */
const STALL_MS = ARRIVAL_MARGIN_MS - OUT_SLACK_MS - JITTER_MS;
const FIRM = { companies: 3, trusts: 3, documentsPerEntity: 1, attachmentsPerDocument: 1 };

/** Folders holding a `.document.json` under `root`: one per document synced. */
function documentFolders(root: string): number {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
    (p) => path.basename(p) === '.document.json',
  ).length;
}

/** Runs `work`, counting the stalls of this process's event loop longer than STALL_MS. */
async function countingStalls<T>(work: Promise<T>): Promise<{ result: T; stalls: number }> {
  const TICK_MS = 5;
  let last = performance.now();
  let stalls = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    if (now - last > TICK_MS + STALL_MS) stalls++;
    last = now;
  }, TICK_MS);
  try {
    return { result: await work, stalls };
  } finally {
    clearInterval(ticker);
  }
}

/** A first `--once` of the firm at CONFIGURED against a simulator allowing `limit` by `mode`. */
async function onceAgainst(mode: RateMode, limit: number) {
  const sim = await startSim({
    seed: FIRM,
    rateLimitPerSecond: limit,
    rateModes: [mode],
    arrivalJitterMs: JITTER_MS,
  });
  const dir = tempDir();
  const config = writeCliConfig(dir, sim, {
    queue: { requestsPerSecond: CONFIGURED, concurrency: 4 },
  });
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const { result: once, stalls } = await countingStalls(
    runCliProcess(['run', '--once', '--config', config], { env, timeoutMs: 120_000 }),
  );
  return {
    once,
    stalls,
    tooMany: answered(sim, 429),
    documents: (await sim.admin.dump()).documents.length,
    documentFolders: documentFolders(path.join(dir, 'documents')),
  };
}

describe('docsync run --once against a gateway counting in each way', () => {
  it.each(RATE_MODES)('%s: the limit known, not one 429 of docsync’s making', async (mode) => {
    const run = await onceAgainst(mode, CONFIGURED);
    expect(run.once.code, run.once.stderr).toBe(0);
    expect(run.tooMany, `${run.stalls} stalls of the simulator`).toBeLessThanOrEqual(run.stalls);
    expect(run.documentFolders).toBe(run.documents);
  });

  it.each(RATE_MODES)(
    '%s: a limit below the configured rate, found with a handful of 429s, and the sync completes',
    async (mode) => {
      const run = await onceAgainst(mode, HIDDEN);
      expect(run.once.code, run.once.stderr).toBe(0);
      expect(run.tooMany).toBeGreaterThan(0);
      expect(run.tooMany).toBeLessThanOrEqual(5);
      expect(run.documentFolders).toBe(run.documents);
    },
  );
});
