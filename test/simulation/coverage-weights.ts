/**
 * The weights of the seeds' profiles (seed-profile.ts), made from a run's coverage
 * (`npm run simulate -- --seeds 1000 --write-weights`; docs/simulation.md, "Seeds aimed where
 * bugs hide"). The targets (a row, a failpoint reached or parked at, a crash at a failpoint)
 * are those fewer than half the seeds reached. For each target and each feature, the seeds that
 * reached the target had the feature on more often, or less often, than all seeds asked about
 * it; where the difference is beyond chance (three standard deviations of a binomial draw), the
 * feature leads to the target, or keeps seeds from it. A feature's lift adds up the excess share
 * (the share among the target's seeds over the share among all, less one) of each such target,
 * weighted by the square root of its rarity (a tenth of the seeds over the seeds that reached
 * it): a rare target counts most, and a feature that keeps seeds from a common one counts too. The new weight is the one the run used times
 * one plus the lift, between 0.05 and 0.6: what led to rare targets is on in more seeds, what
 * kept seeds from them in fewer, and a feature with no such link stays as it was. Written again
 * from a run on the new weights, a weight moves only as far as its links still reach.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { type SeedCoverage, targetsOf } from './coverage.js';
import { type CoverageWeights, DEFAULT_ON, WEIGHTS, WEIGHTS_FILE } from './seed-profile.js';

/** What a run keeps of each seed to weigh the features. */
export interface SeedRecord {
  readonly seed: number;
  readonly coverage: SeedCoverage;
  readonly profile: Readonly<Record<string, boolean>>;
}

/** Targets reached by fewer than this share of the seeds are weighed. */
const WEIGHED = 0.5;
/** A target reached by this share of the seeds weighs 1; rarer ones more. */
const RARE = 0.1;
/** Standard deviations beyond which a feature's share among a target's seeds is no chance. */
const BEYOND_CHANCE = 3;
/** No feature is on in fewer seeds than this share, nor in more than the other. */
const LEAST_ON = 0.05;
const MOST_ON = 0.6;

export function weightsFrom(
  records: readonly SeedRecord[],
  used: CoverageWeights = WEIGHTS,
): CoverageWeights {
  const reached = records.map((r) => new Set(targetsOf(r.coverage).keys()));
  const seedsOf = new Map<string, number>();
  for (const targets of reached) for (const t of targets) seedsOf.set(t, (seedsOf.get(t) ?? 0) + 1);
  const rareAt = RARE * records.length;
  const weighed = [...seedsOf].filter(([, seeds]) => seeds < WEIGHED * records.length);
  const features = [...new Set(records.flatMap((r) => Object.keys(r.profile)))].sort();
  const on: Record<string, number> = {};
  for (const feature of features) {
    const asked = records.flatMap((r, i) =>
      feature in r.profile ? [{ on: r.profile[feature]!, targets: reached[i]! }] : [],
    );
    const share = asked.filter((a) => a.on).length / asked.length;
    if (share === 0 || share === 1) continue;
    let lift = 0;
    for (const [target, seeds] of weighed) {
      const withIt = asked.filter((a) => a.targets.has(target));
      if (withIt.length === 0) continue;
      const onWith = withIt.filter((a) => a.on).length;
      const expected = withIt.length * share;
      const sd = Math.sqrt(withIt.length * share * (1 - share));
      if (Math.abs(onWith - expected) < BEYOND_CHANCE * sd) continue;
      const excess = onWith / withIt.length / share - 1;
      lift += excess * Math.sqrt(rareAt / seeds);
    }
    on[feature] = round(clamp((used.on[feature] ?? DEFAULT_ON) * (1 + lift)));
  }
  const seeds = records.map((r) => r.seed);
  return {
    about: `written by \`npm run simulate -- --write-weights\` from the coverage of ${records.length} seeds, ${Math.min(...seeds)} to ${Math.max(...seeds)} (docs/simulation.md)`,
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
