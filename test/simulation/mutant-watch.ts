/**
 * What `npm run mutants` (test/mutants/) asks of a run of random seeds, through the environment
 * (vitest workers see no command line):
 * - `SIM_STOP_AT_FIRST=1`: stop after the first seed that found something;
 * - `SIM_BASELINE=<file>`: what each seed finds on the code without the mutant (JSON, seed →
 *   finding shapes, as a run with `SIM_RESULT` writes it): a seed that finds only that is not
 *   counted, so a finding of today's code is not taken for the mutant's;
 * - `SIM_RESULT=<file>`: the run's result as JSON, written after every seed, so a run cut short
 *   (a mutant that makes a seed hang) still says how far it got.
 * Without them the run is as before.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { shapeOf } from './finding-shape.js';
import type { SeedOutcome } from './seed-run.js';

export interface WatchResult {
  /** Seeds run, and the last one started. */
  readonly runs: number;
  readonly lastSeed: number | null;
  /** The first seed that found something the baseline does not have. */
  readonly first: {
    readonly seed: number;
    readonly invariant: string;
    readonly detail: string;
  } | null;
  /** Every seed that found something, with its findings' shapes (a baseline, read back). */
  readonly found: Readonly<Record<string, readonly string[]>>;
  readonly done: boolean;
}

export class MutantWatch {
  readonly stopAtFirst: boolean;
  readonly #resultFile: string | null;
  readonly #baseline: Readonly<Record<string, readonly string[]>>;
  #runs = 0;
  #lastSeed: number | null = null;
  #first: WatchResult['first'] = null;
  readonly #found: Record<string, string[]> = {};

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.stopAtFirst = env.SIM_STOP_AT_FIRST === '1';
    this.#resultFile = env.SIM_RESULT || null;
    this.#baseline = env.SIM_BASELINE
      ? (JSON.parse(readFileSync(env.SIM_BASELINE, 'utf8')).found ?? {})
      : {};
  }

  /** A seed begins (its number is written, so a hang names it). */
  starting(seed: number): void {
    this.#lastSeed = seed;
    this.#write(false);
  }

  /** Whether the run stops here: the seed found something new and stopping at it was asked. */
  add(outcome: SeedOutcome): boolean {
    this.#runs++;
    if (outcome.findings.length === 0) return false;
    const shapes = outcome.findings.map((f) => `${f.invariant}: ${shapeOf(f.detail)}`);
    this.#found[String(outcome.seed)] = [...new Set(shapes)];
    const known = new Set(this.#baseline[String(outcome.seed)] ?? []);
    const fresh = outcome.findings.find((_, i) => !known.has(shapes[i]!));
    if (!fresh) return false;
    this.#first ??= { seed: outcome.seed, invariant: fresh.invariant, detail: fresh.detail };
    return this.stopAtFirst;
  }

  finish(): void {
    this.#write(true);
  }

  #write(done: boolean): void {
    if (this.#resultFile === null) return;
    const result: WatchResult = {
      runs: this.#runs,
      lastSeed: this.#lastSeed,
      first: this.#first,
      found: this.#found,
      done,
    };
    writeFileSync(this.#resultFile, JSON.stringify(result));
  }
}
