/**
 * One small realistic bug of the catalogue (test/mutants/catalogue/, one file each, named by its
 * id): `npm run mutants` puts it into a scratch copy of the repository and asks whether the random
 * simulation, then the related tests, catch it (docs/simulation.md, "Mutants").
 */
export interface Mutant {
  /** `m01-webhook-sync-skips-lock`: the catalogue file's name without `.ts`. */
  readonly id: string;
  /** The file the bug goes into, from the repository's root: `src/engine/entity-locks.ts`. */
  readonly file: string;
  /** Code of that file, exactly as it is today; it must occur exactly once. */
  readonly find: string;
  /** What it becomes. */
  readonly replace: string;
  /** The kind of bug, in the words of the issue that asked for the catalogue. */
  readonly bugClass: string;
  /** The bug in one line. */
  readonly what: string;
  /** Test files (from the root) that cover the code it changes. */
  readonly relatedTests: readonly string[];
}
