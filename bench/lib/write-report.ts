/** docs/benchmarks.md from one run: the machine, the date, the table and how each was measured. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './result.js';

const REPORT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../docs/benchmarks.md',
);

export function writeReport(results: ReadonlyMap<number, BenchResult>, elapsedMs: number): void {
  const cpus = os.cpus();
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (`bench/run.ts`); each figure is docsync, each floor is measured',
    'in the same run on the same machine. Run it again to refresh this file.',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} (${os.arch()})`,
    `- Node ${process.version}; whole run ${(elapsedMs / 1000).toFixed(0)} s`,
    '',
    '| # | measure | docsync | floor | target | verdict |',
    '|---|---|---|---|---|---|',
    ...[...results.values()].flatMap((r) =>
      r.rows.map(
        (row) =>
          `| ${row.bench} | ${row.measure} | ${row.figure} | ${row.floor} | ${row.target} | ${row.verdict} |`,
      ),
    ),
    '',
    '## Method',
    '',
    ...[...results.entries()].flatMap(([n, r]) => [
      `### ${n}. ${r.rows[0]?.bench.replace(/^\d+ /, '') ?? ''}`,
      '',
      ...r.notes.map((note) => `- ${note}`),
      '',
    ]),
  ];
  writeFileSync(REPORT, `${lines.join('\n')}${findings()}`);
}

/** The hand-written `## Findings` of the file, kept across runs (they explain the figures). */
function findings(): string {
  const current = existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '';
  const at = current.indexOf('\n## Findings');
  return at === -1 ? '' : current.slice(at);
}
