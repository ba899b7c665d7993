/**
 * `npm run bench [-- --only 1,3] [-- --write]`: runs the benchmarks of issue 8, each beside a
 * floor measured in the same run, prints the table, and (on a full run, or with --write)
 * writes docs/benchmarks.md with the machine and the date.
 */
import { parseArgs } from 'node:util';
import { atRate } from './at-rate.js';
import { duringRound } from './during-round.js';
import { firmScale } from './firm-scale.js';
import { firstSyncMemory } from './first-sync-memory.js';
import { freshness } from './freshness.js';
import { healthCost } from './health-cost.js';
import { hintFreshness } from './hint-freshness.js';
import { initialSync } from './initial-sync.js';
import { lanesBurst } from './lanes-burst.js';
import type { BenchResult, ResultRow } from './lib/result.js';
import { removeScratch } from './lib/temp.js';
import { writeReport } from './lib/write-report.js';
import { localChange } from './local-change.js';
import { memoryIdle } from './memory-idle.js';
import { memorySlope } from './memory-slope.js';
import { quietCycle } from './quiet-cycle.js';
import { rateAdherence } from './rate-adherence.js';
import { rateModes } from './rate-modes.js';
import { startAndStalls } from './start-and-stalls.js';
import { stopAnytime } from './stop-anytime.js';
import { webhookLatency } from './webhook-latency.js';

const BENCHES: Record<number, { name: string; run: () => Promise<BenchResult> }> = {
  1: { name: 'initial sync', run: initialSync },
  2: { name: 'quiet cycle', run: quietCycle },
  3: { name: 'local change latency', run: localChange },
  4: { name: 'webhook to file', run: webhookLatency },
  5: { name: 'memory and idle CPU', run: memoryIdle },
  6: { name: 'rate adherence', run: rateAdherence },
  7: { name: 'benches 1 and 2 at the rate', run: atRate },
  8: { name: 'freshness without webhooks', run: freshness },
  9: { name: 'responsiveness and budget during a poll round', run: duringRound },
  10: { name: 'memory by firm size', run: memorySlope },
  11: { name: 'fair lanes and pacing during a burst of files', run: lanesBurst },
  12: { name: 'local work at the start, event-loop lag during scan passes', run: startAndStalls },
  13: { name: 'freshness without webhooks, with the firm-wide hint', run: hintFreshness },
  14: { name: 'memory of the first sync at a high rate', run: firstSyncMemory },
  15: { name: "a monitor's /healthz with the status page open", run: healthCost },
  16: { name: 'the request governor against each way of counting', run: rateModes },
  17: { name: 'firm scale against each way of counting', run: firmScale },
  18: { name: 'a stop at any moment of the first sync, on a loaded machine', run: stopAnytime },
};

const { values } = parseArgs({
  options: { only: { type: 'string' }, write: { type: 'boolean', default: false } },
});
const selected = values.only
  ? values.only.split(',').map((n) => Number(n.trim()))
  : Object.keys(BENCHES).map(Number);
for (const n of selected)
  if (!BENCHES[n]) throw new Error(`no benchmark ${n} (${Object.keys(BENCHES).join(', ')})`);

const results = new Map<number, BenchResult>();
const started = Date.now();
try {
  for (const n of selected) {
    const bench = BENCHES[n]!;
    process.stderr.write(`bench ${n}: ${bench.name}…\n`);
    const t0 = Date.now();
    try {
      results.set(n, await bench.run());
    } catch (error) {
      // One broken bench must not hide the others' numbers.
      const message = (error as Error).stack ?? String(error);
      process.stderr.write(`bench ${n} failed: ${message}\n`);
      results.set(n, {
        rows: [
          {
            bench: `${n} ${bench.name}`,
            measure: 'run',
            figure: 'error',
            floor: '-',
            target: '-',
            verdict: 'FAIL',
          },
        ],
        notes: [`failed: ${(error as Error).message}`],
      });
    }
    process.stderr.write(`bench ${n}: ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
} finally {
  removeScratch();
}

const rows: ResultRow[] = [...results.values()].flatMap((r) => r.rows);
printTable(rows);
process.stderr.write(`all benches: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
if (values.write || !values.only) writeReport(results, Date.now() - started);

function printTable(table: readonly ResultRow[]): void {
  const head = ['bench', 'measure', 'figure', 'floor', 'target', 'verdict'] as const;
  const cells = [head.map((h) => h), ...table.map((r) => head.map((h) => r[h]))];
  const widths = head.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  for (const [i, row] of cells.entries()) {
    process.stdout.write(`${row.map((c, j) => c.padEnd(widths[j]!)).join(' | ')}\n`);
    if (i === 0) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('-|-')}\n`);
  }
}
