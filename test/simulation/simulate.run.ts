/**
 * `npm run simulate -- --seeds N [--from S] [--trace] [--regressions]` (simulate-cli.mjs passes
 * the arguments as SIM_* variables): runs many seeds, one after another, and prints what they
 * injected, what they found, the failpoints and decision-table rows they reached (coverage.ts),
 * and the trace of the first seed that found something, which replays exactly with `--from S
 * --seeds 1 --trace`. With `--regressions`, the named scenarios (regressions.ts,
 * regressions-found.ts) instead. `--write-weights` writes the profiles' weights from the run's
 * coverage (coverage-weights.ts); `--coverage-log` keeps each seed's coverage, and
 * `--coverage-from` reads such logs instead of running seeds. `npm run mutants` also sets the
 * variables mutant-watch.ts reads (stop at the first finding, a baseline, a result file).
 */
import { expect, it } from 'vitest';
import { CoverageTally } from './coverage.js';
import { logRecord, readRecords, type SeedRecord, writeWeights } from './coverage-weights.js';
import { shapeOf } from './finding-shape.js';
import { MutantWatch } from './mutant-watch.js';
import { runRandomSeed } from './random-steps.js';
import { runScenario, SCENARIOS } from './regressions.js';
import { RANDOM_PLAN, type SeedOutcome } from './seed-run.js';

const env = (name: string, fallback: number) => {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : Number(value);
};

const seeds = env('SIM_SEEDS', 100);
const from = env('SIM_FROM', 1);
const showTrace = process.env.SIM_TRACE === '1';
const regressions = process.env.SIM_REGRESSIONS === '1';
const writingWeights = process.env.SIM_WRITE_WEIGHTS === '1';
const coverageLog = process.env.SIM_COVERAGE_LOG || null;
const coverageFrom = (process.env.SIM_COVERAGE_FROM ?? '').split(',').filter((f) => f !== '');

/** `--coverage-from`: the coverage of seeds run before, from their logs; no seed runs. */
function coverageOfLogs(): void {
  const records = readRecords(coverageFrom);
  const tally = new CoverageTally();
  for (const record of records) tally.add(record.coverage);
  console.log(tally.report().join('\n'));
  if (writingWeights) console.log(writeWeights(records));
}

async function runSeeds(): Promise<void> {
  const tally = new Tally();
  const watch = new MutantWatch();
  if (regressions) {
    for (const scenario of SCENARIOS) tally.add(await runScenario(scenario), scenario.name);
  } else {
    for (let seed = from; seed < from + seeds; seed++) {
      watch.starting(seed);
      const outcome = await runRandomSeed(seed, RANDOM_PLAN);
      tally.add(outcome, `seed ${seed}`);
      if ((seed - from + 1) % 100 === 0) console.log(tally.progress());
      if (watch.add(outcome)) break;
    }
  }
  watch.finish();
  console.log(tally.report(showTrace));
  if (writingWeights) console.log(writeWeights(tally.records));
  expect(tally.failing, 'runs that found something').toEqual([]);
}

if (coverageFrom.length > 0) it('coverage of the seeds in the logs', coverageOfLogs);
else
  it(
    regressions ? 'the named cases, as scenarios' : `seeds ${from} to ${from + seeds - 1}`,
    runSeeds,
    // A run of N seeds gets the time N seeds take on a slow machine, and more.
    Math.max(120_000, (regressions ? 20 : seeds) * 5_000),
  );

class Tally {
  readonly #began = performance.now();
  readonly #injected = new Map<string, number>();
  readonly #found = new Map<string, number>();
  /** Findings by their shape (ids, names and numbers left out): how often, and where first. */
  readonly #kinds = new Map<string, { runs: number; first: string }>();
  readonly failing: string[] = [];
  readonly #coverage = new CoverageTally();
  /** Each seed's coverage and profile, kept only to write the weights. */
  readonly records: SeedRecord[] = [];
  #first: { name: string; outcome: SeedOutcome } | null = null;
  #runs = 0;
  #steps = 0;

  add(outcome: SeedOutcome, name: string): void {
    this.#runs++;
    this.#coverage.add(outcome.coverage);
    const record = {
      seed: outcome.seed,
      coverage: outcome.coverage,
      profile: outcome.profile ?? {},
    };
    if (writingWeights) this.records.push(record);
    if (coverageLog) logRecord(coverageLog, record);
    this.#steps += outcome.steps;
    for (const [kind, n] of Object.entries(outcome.injected))
      this.#injected.set(kind, (this.#injected.get(kind) ?? 0) + n);
    for (const invariant of new Set(outcome.findings.map((f) => f.invariant)))
      this.#found.set(invariant, (this.#found.get(invariant) ?? 0) + 1);
    for (const finding of outcome.findings) {
      const kind = `${finding.invariant}: ${shapeOf(finding.detail)}`;
      const seen = this.#kinds.get(kind);
      this.#kinds.set(kind, { runs: (seen?.runs ?? 0) + 1, first: seen?.first ?? name });
    }
    if (outcome.findings.length > 0) {
      this.failing.push(name);
      this.#first ??= { name, outcome };
      console.log(
        `${name}: ${outcome.findings.map((f) => `${f.invariant}: ${f.detail}`).join('\n  ')}`,
      );
    } else if (showTrace) this.#first ??= { name, outcome };
  }

  progress(): string {
    const minutes = (performance.now() - this.#began) / 60_000;
    return `${this.#runs} runs, ${this.failing.length} found something, ${Math.round(this.#runs / minutes)} per minute`;
  }

  report(trace: boolean): string {
    const lines = [`simulation: ${this.progress()}, ${this.#steps} steps`, 'injected:'];
    for (const [kind, n] of [...this.#injected].sort()) lines.push(`  ${kind}: ${n}`);
    lines.push('found (runs):');
    for (const [invariant, n] of [...this.#found].sort()) lines.push(`  ${invariant}: ${n}`);
    lines.push('found, by shape (runs, first):');
    for (const [kind, { runs, first }] of [...this.#kinds].sort((a, b) => b[1].runs - a[1].runs))
      lines.push(`  ${runs} × ${kind} (first: ${first})`);
    lines.push(...this.#coverage.report());
    if (this.failing.length > 0) lines.push(`failing: ${this.failing.slice(0, 50).join(', ')}`);
    const first = this.#first;
    if (first && (trace || this.failing.length > 0)) {
      lines.push(`--- trace of ${first.name}`, ...first.outcome.trace);
      lines.push(`--- its daemon's last warnings`, ...first.outcome.log);
    }
    return lines.join('\n');
  }
}
