/**
 * One entity's items in error through one cycle. Its plan is complete (the folder is scanned
 * whole, the listing covers whatever changed), so an item the cycle neither recorded again nor
 * left waiting is no longer a problem and leaves `docsync status` at the end: a fixed
 * `.document.json`, a folder moved back, a document that synced. An item that failed waits out
 * its backoff, unless what is planned for it changed (a new edit on either side retries at once).
 */
import { createHash } from 'node:crypto';
import type { DocumentPlan } from '../domain/sync-actions.js';
import type { OwnerRef } from '../domain/types.js';
import { type Problem, type ProblemItem, problemKey } from '../state/problem-repo.js';
import type { EngineDeps } from './engine-deps.js';

export class ProblemBook {
  readonly #known: ReadonlyMap<string, Problem>;
  readonly #seen = new Set<string>();

  constructor(
    private readonly deps: Pick<EngineDeps, 'state' | 'now'>,
    readonly owner: OwnerRef,
    /** The entity's problems as the cycle began. */
    known: readonly Problem[],
    /** Skip what waits out its backoff (the daemon); a `--once` run retries everything. */
    private readonly honourBackoff: boolean,
  ) {
    this.#known = new Map(known.map((p) => [p.key, p]));
  }

  /** A failure to retry after a backoff; `plan` is what was tried. */
  failed(item: ProblemItem, reason: string, plan: DocumentPlan): void {
    this.#seen.add(problemKey(item));
    this.deps.state.problems.record(item, reason, this.deps.now(), {
      backoff: true,
      planFingerprint: fingerprint(plan),
    });
  }

  /** A condition the planner reports each cycle while it lasts: shown, never waited out. */
  found(item: ProblemItem, reason: string): void {
    this.#seen.add(problemKey(item));
    this.deps.state.problems.record(item, reason, this.deps.now(), { backoff: false });
  }

  /** Recorded elsewhere this cycle (a document whose details could not be read). */
  stillFailing(item: ProblemItem): void {
    this.#seen.add(problemKey(item));
  }

  /**
   * Not tried this cycle (a stop came first): a problem it had stays, since nothing showed it
   * gone. Clearing it made an item in error vanish from `docsync status` after a Ctrl-C.
   */
  untouched(item: ProblemItem): void {
    this.#seen.add(problemKey(item));
  }

  /** True while the item waits out its backoff and its plan is the one that failed. */
  waiting(item: ProblemItem, plan: DocumentPlan): boolean {
    const key = problemKey(item);
    const known = this.#known.get(key);
    const waits =
      this.honourBackoff &&
      known !== undefined &&
      known.nextAttemptAt > this.deps.now() &&
      known.planFingerprint === fingerprint(plan);
    if (waits) this.#seen.add(key);
    return waits;
  }

  /** The item succeeded. */
  solved(item: ProblemItem): void {
    this.#seen.add(problemKey(item));
    if (this.#known.has(problemKey(item))) this.deps.state.problems.clear(item);
  }

  /** Forgets what this cycle found no more; returns how many went. */
  settle(): number {
    const gone = [...this.#known.keys()].filter((key) => !this.#seen.has(key));
    return this.deps.state.problems.clearKeys(gone);
  }
}

/** What a document's plan asks for, as a short stable digest. */
function fingerprint(plan: DocumentPlan): string {
  return createHash('sha256').update(JSON.stringify(plan.actions)).digest('base64url').slice(0, 22);
}
