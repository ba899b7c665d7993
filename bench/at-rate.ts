/**
 * Bench 7: benches 1 and 2 at the service's rate (issue 18). Benches 1 and 2 run unthrottled,
 * where the HTTP client's CPU per request shows; the real service allows about 10 requests a
 * second, and this measures whether the client's cost shows there at all. An initial sync and
 * then a quiet cycle of a small firm, with `queue.requestsPerSecond: 10` against a simulator
 * limited to 10 per second per token. Floor: the time the rate alone needs for the same
 * requests, (n − 1) ÷ 10 s, computed from the requests counted in the same run. Also the
 * process's CPU time over each, which is what a faster or slower client would change.
 */
import { runCycle } from '../src/engine/run-cycle.js';
import { openEngine } from './lib/engine.js';
import { type BenchResult, verdict } from './lib/result.js';
import { startSimProcess } from './lib/sim-process.js';
import { scratch } from './lib/temp.js';

const RATE = 10;
const FIRM = {
  companies: 40,
  trusts: 40,
  documentsPerEntity: 2,
  attachmentsPerDocument: 1,
  attachmentBytes: 1024,
  seed: 17,
};

interface Timed {
  readonly ms: number;
  readonly cpuMs: number;
  readonly requests: number;
}

export async function atRate(): Promise<BenchResult> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: RATE });
  try {
    let requests = 0;
    const engine = await openEngine(sim, scratch('at-rate'), {
      requestsPerSecond: RATE,
      onResponse: () => requests++,
    });
    const timed = async (full: boolean): Promise<Timed> => {
      requests = 0;
      const cpu = process.cpuUsage();
      const started = performance.now();
      const report = await runCycle(engine.deps, { trigger: 'once', fullReconcile: full });
      const ms = performance.now() - started;
      if (report.result !== 'ok') throw new Error(`at-rate cycle: ${report.result}`);
      const used = process.cpuUsage(cpu);
      return { ms, cpuMs: (used.user + used.system) / 1000, requests };
    };
    const initial = await timed(true);
    const quiet = await timed(false);
    engine.close();
    const rows = [
      ['initial sync', initial],
      ['quiet cycle', quiet],
    ] as const;
    return {
      rows: rows.flatMap(([what, t]) => {
        const floorMs = ((t.requests - 1) / RATE) * 1000;
        return [
          {
            bench: '7 at the rate',
            measure: `${what}, ${t.requests} requests at ${RATE}/s: wall time`,
            figure: `${(t.ms / 1000).toFixed(1)} s`,
            floor: `${(floorMs / 1000).toFixed(1)} s`,
            target: '≤ 1.1× floor',
            verdict: verdict(t.ms <= floorMs * 1.1),
          },
          {
            bench: '7 at the rate',
            measure: `${what}: CPU time of the process`,
            figure: `${Math.round(t.cpuMs)} ms`,
            floor: '-',
            target: '-',
            verdict: 'info' as const,
          },
        ];
      }),
      notes: [
        `docsync: \`runCycle\` with \`requestsPerSecond: ${RATE}\`, concurrency 4, against a simulator limiting each token to ${RATE} requests a second: an initial sync of ${FIRM.companies + FIRM.trusts} entities × ${FIRM.documentsPerEntity} documents × ${FIRM.attachmentsPerDocument} attachment, then a quiet cycle. Requests counted by the client's \`onResponse\` hook.`,
        `Floor: (requests − 1) ÷ ${RATE}/s, the least time the rate allows. CPU: \`process.cpuUsage()\` over the cycle, the whole process.`,
      ],
    };
  } finally {
    await sim.close();
  }
}
