/**
 * Bench 6: `queue.requestsPerSecond: 10` with a backlog (an initial sync of ~200 requests)
 * against a simulator limited to 10 per second per token. Achieved rate: requests answered
 * (from the client's `onResponse`) over the time from the first to the last. Floor: a bare
 * `fetch` loop that sends one request every 100 ms, the naive pacer, against the same limit.
 */
import { runCycle } from '../src/engine/run-cycle.js';
import { openEngine } from './lib/engine.js';
import { FloorClient } from './lib/floor-client.js';
import { type BenchResult, verdict } from './lib/result.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { sleep } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const RATE = 10;
const FIRM = {
  companies: 5,
  trusts: 5,
  documentsPerEntity: 10,
  attachmentsPerDocument: 1,
  seed: 6,
};

async function tooMany(sim: SimProcess): Promise<number> {
  let n = 0;
  for (const [route, count] of Object.entries((await sim.counters()).api.byRoute)) {
    if (route.endsWith(' 429')) n += count;
  }
  return n;
}

export async function rateAdherence(): Promise<BenchResult> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: RATE });
  try {
    const times: number[] = [];
    const engine = await openEngine(sim, scratch('rate'), {
      requestsPerSecond: RATE,
      onResponse: () => times.push(performance.now()),
    });
    await sim.resetCounters();
    const report = await runCycle(engine.deps, { trigger: 'once', fullReconcile: true });
    engine.close();
    if (report.result !== 'ok') throw new Error(`rate bench sync: ${report.result}`);
    const rate = (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000);
    const rejected = await tooMany(sim);

    await sim.resetCounters();
    const floor = new FloorClient(sim);
    await floor.authorise();
    const started = performance.now();
    for (let i = 0; i < times.length; i++) {
      void floor.get('/cas/documents/statusTypes').catch(() => undefined);
      await sleep(1000 / RATE);
    }
    const floorRate = (times.length - 1) / ((performance.now() - started - 1000 / RATE) / 1000);
    const floorRejected = await tooMany(sim);
    return {
      rows: [
        {
          bench: '6 rate adherence',
          measure: `achieved rate at ${RATE}/s, ${times.length} requests`,
          figure: `${rate.toFixed(2)}/s`,
          floor: `${floorRate.toFixed(2)}/s`,
          target: '9.5–10/s',
          verdict: verdict(rate >= 9.5 && rate <= 10),
        },
        {
          bench: '6 rate adherence',
          measure: `429 answers from a simulator limited to ${RATE}/s`,
          figure: String(rejected),
          floor: String(floorRejected),
          target: '0',
          verdict: verdict(rejected === 0),
        },
      ],
      notes: [
        `docsync: \`runCycle\` (initial sync of 10 entities × 10 documents × 1 attachment) with \`requestsPerSecond: ${RATE}\`, concurrency 4, against a simulator limiting each token to ${RATE} requests in any one-second window. Rate: answers counted by the client's \`onResponse\` hook, (n − 1) over first-to-last.`,
        'Floor: a `fetch` loop sending the same number of requests one every 100 ms (`setTimeout` pacing), to show what naive pacing earns against a sliding-window limit.',
      ],
    };
  } finally {
    await sim.close();
  }
}
