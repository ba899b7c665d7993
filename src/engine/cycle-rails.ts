/**
 * The rails in a cycle (style guide §4): judged over the plans of the whole cycle, once every
 * entity is planned, before any delete runs; a tripped delete rail takes the deletes it names
 * out of the plans, and everything else still runs. A held delete a person approved
 * (`docsync deletes approve`) passes them, as under `--force-deletes`, and is not counted.
 */
import {
  checkSafety,
  railsMayHold,
  type TrippedRail,
  withoutDeletes,
} from '../domain/check-safety.js';
import { heldKeyOf } from '../domain/held-deletes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { SyncAction } from '../domain/sync-actions.js';
import type { DeleteWindow } from './delete-window.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityJob } from './plan-entity.js';

export interface RailOptions {
  /** `--force-deletes`: lifts the delete rails, not the empty-listing one. */
  readonly forceDeletes?: boolean;
  /** The daemon's rolling window: its entity syncs are judged together, not one by one. */
  readonly deleteWindow?: DeleteWindow;
  /** Held deletes a person approved, by `heldKey`: past the delete rails, once. */
  readonly approvedDeletes?: ReadonlySet<string>;
}

/** Whether a person approved this delete (`docsync deletes approve`). */
function approvedIn(options: RailOptions): (action: SyncAction) => boolean {
  const approved = options.approvedDeletes;
  if (!approved || approved.size === 0) return () => false;
  return (action) => approved.has(heldKeyOf(action) ?? '');
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
  const approved = approvedIn(options);
  const anyApproved = (options.approvedDeletes?.size ?? 0) > 0;
  const verdict = checkSafety(
    jobs.map((j) => (anyApproved ? withoutDeletes(j.plan, approved) : j.plan)),
    {
      markerPresent: true,
      ...(window
        ? { window: { ...window.counts(now), baseDocuments: deps.state.base.countAll() } }
        : {}),
    },
    safetyPolicy(deps, options),
  );
  const tripped = verdict.ok ? [] : verdict.tripped;
  window?.record(now, deletesLetThrough(jobs, tripped, options));
  return tripped;
}

/** What the window counts: the deletes the rails judged and let through, not approved ones. */
function deletesLetThrough(
  jobs: readonly EntityJob[],
  tripped: readonly TrippedRail[],
  options: RailOptions,
) {
  const approved = approvedIn(options);
  const actions = jobs
    .flatMap((job) => withRails(job, tripped, options).plan.actions)
    .filter((a) => !approved(a));
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

/**
 * A tripped delete rail removes the deletes it names; everything else of the plan still runs,
 * and so do the deletes a person approved.
 */
export function withRails(
  job: EntityJob,
  tripped: readonly TrippedRail[],
  options: RailOptions = {},
): EntityJob {
  const held = heldByRails(job, tripped, options);
  return held === null ? job : { ...job, plan: withoutDeletes(job.plan, held) };
}

/** Which of the job's deletes the tripped rails hold; null when none applies to it. */
export function heldByRails(
  job: EntityJob,
  tripped: readonly TrippedRail[],
  options: RailOptions = {},
): ((action: SyncAction) => boolean) | null {
  const applies = tripped.filter(
    (t) => t.owner === null || ownerKey(t.owner) === ownerKey(job.owner),
  );
  if (applies.length === 0) return null;
  const sides = new Set(applies.map((t) => t.side));
  const approved = approvedIn(options);
  return (a) =>
    !approved(a) &&
    ((a.kind === 'trash-local-document' && (sides.has('local') || sides.has(null))) ||
      (a.kind === 'push-delete-document' && (sides.has('remote') || sides.has(null))));
}
