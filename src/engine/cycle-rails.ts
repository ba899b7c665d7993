/**
 * The rails in a cycle (style guide §4): judged over the plans of the whole cycle, once every
 * entity is planned, before any delete runs; a tripped delete rail takes the deletes it names
 * out of the plans, and everything else still runs.
 */
import {
  checkSafety,
  railsMayHold,
  type TrippedRail,
  withoutDeletes,
} from '../domain/check-safety.js';
import { ownerKey } from '../domain/owner-key.js';
import type { SyncPlan } from '../domain/sync-actions.js';
import type { DeleteWindow } from './delete-window.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityJob } from './plan-entity.js';

export interface RailOptions {
  /** `--force-deletes`: lifts the delete rails, not the empty-listing one. */
  readonly forceDeletes?: boolean;
  /** The daemon's rolling window: its entity syncs are judged together, not one by one. */
  readonly deleteWindow?: DeleteWindow;
}

/** The rails' verdict on the cycle's plans; the root's marker was checked before planning. */
export function judgeRails(
  deps: EngineDeps,
  options: RailOptions,
  jobs: readonly EntityJob[],
): readonly TrippedRail[] {
  const now = deps.now();
  // The window is read only for a plan that deletes: counting the store's base documents is a
  // scan of a table of 100,000 rows, and most entity syncs delete nothing.
  const deletes = jobs.some((j) => j.plan.documents.some(railsMayHold));
  const window = deletes ? options.deleteWindow : undefined;
  const verdict = checkSafety(
    jobs.map((j) => j.plan),
    {
      markerPresent: true,
      ...(window
        ? { window: { ...window.counts(now), baseDocuments: deps.state.base.countAll() } }
        : {}),
    },
    safetyPolicy(deps, options),
  );
  const tripped = verdict.ok ? [] : verdict.tripped;
  window?.record(now, deletesLetThrough(jobs, tripped));
  return tripped;
}

function deletesLetThrough(jobs: readonly EntityJob[], tripped: readonly TrippedRail[]) {
  const actions = jobs.flatMap((job) => withRails(job, tripped).plan.actions);
  return {
    local: actions.filter((a) => a.kind === 'trash-local-document').length,
    remote: actions.filter((a) => a.kind === 'push-delete-document').length,
  };
}

/** The rail the root is judged by before anything is planned: its `.docsync-root` marker. */
export function markerRails(deps: EngineDeps, options: RailOptions): readonly TrippedRail[] {
  const verdict = checkSafety([], { markerPresent: false }, safetyPolicy(deps, options));
  return verdict.ok ? [] : verdict.tripped;
}

function safetyPolicy(deps: EngineDeps, options: RailOptions) {
  const { maxDeletePercent, maxDeleteCount } = deps.settings;
  return { maxDeletePercent, maxDeleteCount, forceDeletes: options.forceDeletes ?? false };
}

/** A tripped delete rail removes the deletes it names; everything else of the plan still runs. */
export function withRails(job: EntityJob, tripped: readonly TrippedRail[]): EntityJob {
  const applies = tripped.filter(
    (t) => t.owner === null || ownerKey(t.owner) === ownerKey(job.owner),
  );
  if (applies.length === 0) return job;
  const sides = new Set(applies.map((t) => t.side));
  const plan: SyncPlan = withoutDeletes(
    job.plan,
    (a) =>
      (a.kind === 'trash-local-document' && (sides.has('local') || sides.has(null))) ||
      (a.kind === 'push-delete-document' && (sides.has('remote') || sides.has(null))),
  );
  return { ...job, plan };
}
