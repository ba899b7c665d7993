/**
 * The weights of the seeds' profiles (seed-profile.ts), made from a run's coverage
 * (`npm run simulate -- --seeds 1000 --write-weights`; docs/simulation.md, "Seeds aimed where
 * bugs hide"). A target (a row, a failpoint reached or parked at, a crash at a failpoint) is
 * worth the inverse of the seeds that reached it: rare ones count most. A feature's lift is how
 * much likelier it was on in the seeds that reached each target than in all seeds asked about
 * it, averaged over the targets by their worth; the weight is DEFAULT_ON times the lift, so
 * features that went with rare targets are on in more seeds, and features that went with none
 * in fewer.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { type SeedCoverage, targetsOf } from './coverage.js';
import { type CoverageWeights, DEFAULT_ON, WEIGHTS_FILE } from './seed-profile.js';

/** What a run keeps of each seed to weigh the features. */
export interface SeedRecord {
  readonly seed: number;
  readonly coverage: SeedCoverage;
  readonly profile: Readonly<Record<string, boolean>>;
}

/** Seeds a target's share of a feature is drawn towards the feature's share in all (smoothing). */
const PRIOR_SEEDS = 5;
/** No feature is on in fewer seeds than this share, nor in more than the other. */
const LEAST_ON = 0.05;
const MOST_ON = 0.8;

export function weightsFrom(records: readonly SeedRecord[]): CoverageWeights {
  const reached = records.map((r) => new Set(targetsOf(r.coverage).keys()));
  const seedsOf = new Map<string, number>();
  for (const targets of reached) for (const t of targets) seedsOf.set(t, (seedsOf.get(t) ?? 0) + 1);
  const features = [...new Set(records.flatMap((r) => Object.keys(r.profile)))].sort();
  const on: Record<string, number> = {};
  for (const feature of features) {
    const asked = records.flatMap((r, i) =>
      feature in r.profile ? [{ on: r.profile[feature]!, targets: reached[i]! }] : [],
    );
    const share = asked.filter((a) => a.on).length / asked.length;
    if (share === 0 || share === 1) continue;
    let lift = 0;
    let worth = 0;
    for (const [target, seeds] of seedsOf) {
      const with_ = asked.filter((a) => a.targets.has(target));
      if (with_.length === 0) continue;
      const onShare =
        (with_.filter((a) => a.on).length + share * PRIOR_SEEDS) / (with_.length + PRIOR_SEEDS);
      lift += onShare / share / seeds;
      worth += 1 / seeds;
    }
    if (worth > 0) on[feature] = round(clamp(DEFAULT_ON * (lift / worth)));
  }
  return {
    about: `written by \`npm run simulate -- --write-weights\` from ${records.length} seeds (docs/simulation.md)`,
    on,
  };
}

export function writeWeights(records: readonly SeedRecord[]): string {
  const weights = weightsFrom(records);
  writeFileSync(WEIGHTS_FILE, `${JSON.stringify(weights, null, 2)}\n`);
  return `wrote ${Object.keys(weights.on).length} feature weights to ${WEIGHTS_FILE.pathname}`;
}

/** One line of JSON per seed, to weigh ranges run apart (`--coverage-log`, `--coverage-from`). */
export function logRecord(file: string, record: SeedRecord): void {
  appendFileSync(file, `${JSON.stringify(record)}\n`);
}

export function readRecords(files: readonly string[]): SeedRecord[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as SeedRecord),
  );
}

const clamp = (p: number) => Math.min(MOST_ON, Math.max(LEAST_ON, p));
const round = (p: number) => Math.round(p * 1000) / 1000;
