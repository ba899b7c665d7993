/**
 * What a seed reached (docs/simulation.md, "Coverage"): each failpoint, how often it was reached
 * and how often a sync parked there; each crash, at which failpoints syncs were parked when it
 * came; and each row of the decision table (docs/sync-decision-table.md) the seed's plans used,
 * as the engine tells the `entity-planned` failpoint. A run adds its seeds up (CoverageTally) and
 * names what none of them reached; the steering (seed-profile.ts) aims at the rare ones.
 */
import { readFileSync } from 'node:fs';
import { FAILPOINTS, type Failpoint, type FailpointSite } from '../../src/engine/failpoints.js';

export interface SeedCoverage {
  /** Per failpoint: times reached, and times a sync parked there. */
  readonly failpoints: Readonly<
    Record<string, { readonly reached: number; readonly parked: number }>
  >;
  /** Per failpoint: crashes that came while a sync was parked there. */
  readonly crashes: Readonly<Record<string, number>>;
  /** Per decision-table row: the times a plan used it. */
  readonly rows: Readonly<Record<string, number>>;
}

/** The rows of docs/sync-decision-table.md, read from its tables (the docs are the list). */
export const TABLE_ROWS: readonly number[] = readFileSync(
  new URL('../../docs/sync-decision-table.md', import.meta.url),
  'utf8',
)
  .split('\n')
  .map((line) => /^\| (\d+) \|/.exec(line)?.[1])
  .filter((row): row is string => row !== undefined)
  .map(Number)
  .sort((a, b) => a - b);

/** Rows no planned action carries, so no count can see them; why, for the report. */
export const SILENT_ROWS: Readonly<Record<number, string>> = {
  4: 'an empty new folder: nothing is planned',
  7: 'in sync: nothing is planned',
  16: 'deleted in the service, absent from both: nothing is planned',
  29: 'a rule inside other rows’ rewrites of `.document.json`, with no action of its own',
};

/** One seed's counts, kept by SeedRun as things happen. */
export class CoverageCounter {
  readonly #reached = new Map<string, { reached: number; parked: number }>();
  readonly #crashes = new Map<string, number>();
  readonly #rows = new Map<string, number>();

  reached(step: Failpoint, site: FailpointSite): void {
    this.#failpoint(step).reached++;
    for (const row of site.rows ?? [])
      this.#rows.set(String(row), (this.#rows.get(String(row)) ?? 0) + 1);
  }

  parked(step: Failpoint): void {
    this.#failpoint(step).parked++;
  }

  /** A crash came while syncs were parked at these failpoints. */
  crashed(parkedAt: readonly Failpoint[]): void {
    for (const step of new Set(parkedAt))
      this.#crashes.set(step, (this.#crashes.get(step) ?? 0) + 1);
  }

  get coverage(): SeedCoverage {
    return {
      failpoints: Object.fromEntries(this.#reached),
      crashes: Object.fromEntries(this.#crashes),
      rows: Object.fromEntries(this.#rows),
    };
  }

  #failpoint(step: Failpoint) {
    const counts = this.#reached.get(step) ?? { reached: 0, parked: 0 };
    this.#reached.set(step, counts);
    return counts;
  }
}

/**
 * The targets a seed reached, by name: `row 12`, `failpoint before-commit` (reached),
 * `park before-commit`, `crash at before-commit`. The tally and the weights count these.
 */
export function targetsOf(coverage: SeedCoverage): Map<string, number> {
  const targets = new Map<string, number>();
  for (const [row, n] of Object.entries(coverage.rows)) targets.set(`row ${row}`, n);
  for (const [step, { reached, parked }] of Object.entries(coverage.failpoints)) {
    if (reached > 0) targets.set(`failpoint ${step}`, reached);
    if (parked > 0) targets.set(`park ${step}`, parked);
  }
  for (const [step, n] of Object.entries(coverage.crashes)) targets.set(`crash at ${step}`, n);
  return targets;
}

/** Where a chain of work starts: a sync always parks there, so its parks are its reaches. */
const ALWAYS_PARKS: ReadonlySet<string> = new Set([
  'round-start',
  'catalogue-refresh',
  'cycle-start',
]);
/** The harness never parks at the end of a cycle: nothing is left to change under it. */
const NEVER_PARKS: ReadonlySet<string> = new Set(['cycle-end']);

/**
 * Every target a run could name as never reached: each row, each failpoint reached, parked at
 * (where that is a choice), and crashed at.
 */
export const ALL_TARGETS: readonly string[] = [
  ...FAILPOINTS.flatMap((step) => [
    `failpoint ${step}`,
    ...(ALWAYS_PARKS.has(step) || NEVER_PARKS.has(step) ? [] : [`park ${step}`]),
    ...(NEVER_PARKS.has(step) ? [] : [`crash at ${step}`]),
  ]),
  ...TABLE_ROWS.filter((row) => !(row in SILENT_ROWS)).map((row) => `row ${row}`),
];

/** A run's coverage: per target, the seeds that reached it and the times in all. */
export class CoverageTally {
  readonly #targets = new Map<string, { seeds: number; times: number }>();
  #seeds = 0;

  add(coverage: SeedCoverage): void {
    this.#seeds++;
    for (const [target, n] of targetsOf(coverage)) {
      const seen = this.#targets.get(target) ?? { seeds: 0, times: 0 };
      this.#targets.set(target, { seeds: seen.seeds + 1, times: seen.times + n });
    }
  }

  /** Seeds that reached `target` (0 when none did). */
  seedsOf(target: string): number {
    return this.#targets.get(target)?.seeds ?? 0;
  }

  report(): string[] {
    const width = Math.max(...ALL_TARGETS.map((t) => t.length));
    const line = (target: string) => {
      const { seeds, times } = this.#targets.get(target) ?? { seeds: 0, times: 0 };
      return `  ${target.padEnd(width)}  ${String(seeds).padStart(6)} seeds ${String(times).padStart(8)} times`;
    };
    const lines = [`coverage of ${this.#seeds} seeds (seeds that reached it, times in all):`];
    for (const target of ALL_TARGETS) lines.push(line(target));
    const never = ALL_TARGETS.filter((t) => !this.#targets.has(t));
    lines.push(`never reached: ${never.length > 0 ? never.join(', ') : 'none'}`);
    const rare = ALL_TARGETS.filter((t) => this.#targets.has(t) && this.seedsOf(t) < 10);
    if (rare.length > 0) lines.push(`reached by fewer than 10 seeds: ${rare.join(', ')}`);
    const silent = Object.entries(SILENT_ROWS).map(([row, why]) => `${row} (${why})`);
    lines.push(`not counted, no action carries them: rows ${silent.join('; ')}`);
    return lines;
  }
}
