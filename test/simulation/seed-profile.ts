/**
 * A random seed's leanings, in the manner of FoundationDB's buggify (docs/simulation.md,
 * "Seeds aimed where bugs hide"): each seed turns some features on, and a feature on makes its
 * thing much likelier in that seed: a failpoint where syncs park nearly every time (`park
 * before-commit`), a kind of step or injection four times as likely (`step crash`, `local:
 * renamed folder`, `fault: uploads answer 503`), crashes aimed at syncs parked at a failpoint
 * (`crash at before-commit`), answers held back often (`late answers`), edits of both sides
 * on one document (`one document`: where conflicts are), parked work let go less often (`edits
 * pile up`: both sides' edits meet in one sync). So one seed is heavy in crashes
 * before commits, another in renames during uploads.
 *
 * The leanings wake once the first sync is done: until then the seed chooses as an unsteered
 * one, so the firm's folders are there to edit (a seed that crashed at every commit of the
 * first sync, or let its parks wait, made few of them, and reached few rows).
 *
 * Whether a feature is on is a function of the seed's number and the feature's name alone
 * (hashed to a number of the seed's own generator), drawn when first asked: a seed replays from
 * its number, whatever else the driver asks in between, and a new kind of injection takes part
 * without a list to keep. How likely a feature is on comes from coverage-weights.json, written
 * from a run's coverage (coverage-weights.ts); a feature it does not name is on in a quarter of
 * the seeds.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Failpoint } from '../../src/engine/failpoints.js';
import { hashString, pick, type Random, seededRandom } from '../../src/simulator/random.js';

/** How likely a feature the weights do not name is on in a seed. */
export const DEFAULT_ON = 0.25;
/** A step or an injection kind that is on is this many times as likely. */
const BOOST = 4;
/** A crash with a sync parked at a failpoint its seed aims crashes at: this many times. */
const CRASH_AIMED = 20;
/** A failpoint that is on parks a sync this often (unless it always parks). */
const PARK_WHEN_ON = 0.9;
/** Where a chain of work starts: a crash there finds nothing in flight, so none is aimed there. */
const CHAIN_STARTS: ReadonlySet<Failpoint> = new Set([
  'round-start',
  'catalogue-refresh',
  'cycle-start',
]);
/** A seed on `one document` edits the document it edited last this often. */
const SAME_DOCUMENT = 0.75;

export const WEIGHTS_FILE = new URL('./coverage-weights.json', import.meta.url);

export interface CoverageWeights {
  /** What wrote it, and from which seeds. */
  readonly about?: string;
  /** Per feature: how likely it is on in a seed. */
  readonly on: Readonly<Record<string, number>>;
}

function readWeights(): CoverageWeights {
  if (!existsSync(WEIGHTS_FILE)) return { on: {} };
  return JSON.parse(readFileSync(WEIGHTS_FILE, 'utf8')) as CoverageWeights;
}

/** Read once: every seed of a run (and of a replay, with the same code) sees the same table. */
export const WEIGHTS = readWeights();

export class SeedProfile {
  readonly #on = new Map<string, boolean>();
  /** The document an edit of either side picked last. */
  #focus: string | null = null;
  /** Whether the leanings act yet: once the first sync is done (the driver says so). */
  awake = false;

  constructor(
    readonly seed: number,
    private readonly weights: CoverageWeights = WEIGHTS,
  ) {}

  /** Whether `feature` is on in this seed. */
  on(feature: string): boolean {
    let on = this.#on.get(feature);
    if (on === undefined) {
      const draw = seededRandom(hashString(`${this.seed}\u0000${feature}`))();
      on = draw < (this.weights.on[feature] ?? DEFAULT_ON);
      this.#on.set(feature, on);
    }
    return on;
  }

  /** A weight's factor: BOOST when `feature` is on. */
  boost(feature: string): number {
    return this.#acts(feature) ? BOOST : 1;
  }

  /** How often a sync parks at `step` in this seed. */
  parkChance(step: Failpoint, usual: number): number {
    return this.#acts(`park ${step}`) ? Math.max(usual, PARK_WHEN_ON) : usual;
  }

  /** A crash's factor, with syncs parked at these failpoints. */
  crashAimed(parkedAt: readonly (Failpoint | null)[]): number {
    const aimed = parkedAt.some(
      (step) => step !== null && !CHAIN_STARTS.has(step) && this.#acts(`crash at ${step}`),
    );
    return aimed ? CRASH_AIMED : 1;
  }

  /** The document an edit works on: in a seed on `one document`, mostly the last one edited. */
  pickDocument<T extends { readonly id: string }>(random: Random, docs: readonly T[]): T {
    const last = this.#focus === null ? undefined : docs.find((d) => d.id === this.#focus);
    if (last && this.#acts('one document') && random() < SAME_DOCUMENT) return last;
    const doc = pick(random, docs);
    this.#focus = doc.id;
    return doc;
  }

  /** `usual`, or `boosted` when `feature` is on. */
  chance(feature: string, usual: number, boosted: number): number {
    return this.#acts(feature) ? boosted : usual;
  }

  /** On, and awake. */
  #acts(feature: string): boolean {
    return this.awake && this.on(feature);
  }

  /** Every feature asked about, on or off, by name. */
  get features(): Record<string, boolean> {
    return Object.fromEntries([...this.#on].sort(([a], [b]) => a.localeCompare(b)));
  }
}
