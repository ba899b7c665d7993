/**
 * The rails in a cycle (style guide §4): judged over the plans of the whole cycle, once every
 * entity is planned, before any delete runs; a tripped delete rail takes the deletes it names
 * out of the plans, and everything else still runs. A held delete a person approved
 * (`docsync deletes approve`) passes them, as under `--force-deletes`, and is not counted.
 *
 * Under the daemon (`deleteWindow`), a removed folder's delete first waits its hold time
 * (domain/delete-hold.ts) and is left out of the plan meanwhile; the deletes that are due are
 * judged with every delete still in its hold anywhere in the store, and with what the window
 * let through; a delete a rail held for a person stays held. The reading of those and the
 * recording of the verdict (held-deletes.ts) happen in one synchronous step, so two entities'
 * syncs side by side never judge the same deletes apart.
 */
import {
  checkSafety,
  type DeleteWindowContext,
  isDeleteRail,
  railsMayHold,
  type SideCounts,
  type TrippedRail,
  withoutDeletes,
} from '../domain/check-safety.js';
import { holdOf } from '../domain/delete-hold.js';
import { deleteSideOf, heldKeyOf } from '../domain/held-deletes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { SyncAction, SyncPlan } from '../domain/sync-actions.js';
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

/** The rails' verdict on a cycle's plans. */
export interface RailVerdict {
  readonly tripped: readonly TrippedRail[];
  /**
   * Deletes in their hold time (the daemon's), by `heldKey`: when the hold ends, and whether
   * this sync is the first to see the folder gone.
   */
  readonly waiting: ReadonlyMap<string, { readonly until: number; readonly first: boolean }>;
  /** Deletes a rail held for a person in an earlier sync (the daemon's), by `heldKey`. */
  readonly stillHeld: ReadonlySet<string>;
}

const NOTHING_WAITS: RailVerdict['waiting'] = new Map();
const NOTHING_HELD: RailVerdict['stillHeld'] = new Set();

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
): RailVerdict {
  const now = deps.now();
  // The window is read only for a plan that deletes: counting the store's base documents is a
  // scan of a table of 100,000 rows, and most entity syncs delete nothing.
  const deletes = jobs.some((j) => j.plan.documents.some(railsMayHold));
  const window = deletes ? options.deleteWindow : undefined;
  const approved = approvedIn(options);
  const anyApproved = (options.approvedDeletes?.size ?? 0) > 0;
  const plans = jobs.map((j) => (anyApproved ? withoutDeletes(j.plan, approved) : j.plan));
  const hold = window ? holdTimes(deps, window, plans, now) : undefined;
  const judged = hold ? plans.map((p) => withoutDeletes(p, notJudged(hold))) : plans;
  const context: DeleteWindowContext | undefined =
    window && hold
      ? {
          ...window.counts(now),
          baseDocuments: deps.state.base.countAll(),
          inHold: hold.inHold,
          holdingUntil: window.holdingUntil(now),
          tripHoldsUntil: window.windowEnd(now),
        }
      : undefined;
  const safety = checkSafety(
    judged,
    { markerPresent: true, ...(context ? { window: context } : {}) },
    safetyPolicy(deps, options),
  );
  const verdict: RailVerdict = {
    tripped: safety.ok ? [] : safety.tripped,
    waiting: hold?.waiting ?? NOTHING_WAITS,
    stillHeld: hold?.stillHeld ?? NOTHING_HELD,
  };
  if (window) {
    window.record(now, deletesLetThrough(jobs, verdict, options));
    for (const t of verdict.tripped)
      if ((t.rail === 'delete-count' || t.rail === 'delete-percent') && t.side)
        window.trip(now, t.side);
  }
  return verdict;
}

/**
 * Which planned deletes are in their hold time or held for a person already, and how many
 * deletes are in their hold in the whole store per side, this sync's included.
 */
function holdTimes(
  deps: EngineDeps,
  window: DeleteWindow,
  plans: readonly SyncPlan[],
  now: number,
): Pick<RailVerdict, 'waiting' | 'stillHeld'> & { readonly inHold: SideCounts } {
  const { heldDeletes } = deps.state;
  const waiting = new Map<string, { until: number; first: boolean }>();
  const stillHeld = new Set<string>();
  const stored = heldDeletes.inHold();
  const inHold = { local: stored.local, remote: stored.remote };
  for (const action of plans.flatMap((p) => p.actions)) {
    const side = deleteSideOf(action);
    const key = heldKeyOf(action);
    if (side === null || key === null || action.documentId === null) continue;
    const known = heldDeletes.undecided(action.documentId, side);
    const verdict = holdOf({ side, known }, now, window.holdMs);
    // A stored delete in its hold is counted once: as due with the plans, or as waiting here.
    if (known?.dueAt != null && verdict.kind === 'due') inHold[side] -= 1;
    if (verdict.kind === 'held') stillHeld.add(key);
    if (verdict.kind !== 'waits') continue;
    waiting.set(key, { until: verdict.until, first: known === undefined });
    if (known === undefined) inHold[side] += 1;
  }
  return { waiting, stillHeld, inHold };
}

/** The deletes the rails do not judge now: in their hold, or held for a person already. */
const notJudged =
  (hold: Pick<RailVerdict, 'waiting' | 'stillHeld'>) =>
  (a: SyncAction): boolean => {
    const key = heldKeyOf(a) ?? '';
    return hold.waiting.has(key) || hold.stillHeld.has(key);
  };

/** What the window counts: the deletes the rails judged and let through, not approved ones. */
function deletesLetThrough(jobs: readonly EntityJob[], verdict: RailVerdict, options: RailOptions) {
  const approved = approvedIn(options);
  const actions = jobs
    .flatMap((job) => withRails(job, verdict, options).plan.actions)
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
 * A tripped delete rail removes the deletes it names; a delete in its hold time waits, and one
 * held for a person stays held. Everything else of the plan still runs, and so do the deletes a
 * person approved.
 */
export function withRails(
  job: EntityJob,
  verdict: RailVerdict,
  options: RailOptions = {},
): EntityJob {
  const held = heldByRails(job, verdict.tripped, options);
  const waits = verdict.waiting.size + verdict.stillHeld.size > 0 ? notJudged(verdict) : null;
  if (held === null && waits === null) return job;
  const dropped = (a: SyncAction) => (held?.(a) ?? false) || (waits?.(a) ?? false);
  return { ...job, plan: withoutDeletes(job.plan, dropped) };
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

/** The delete rails among the tripped ones: those whose holds are kept for a person. */
export const deleteRailsOf = (tripped: readonly TrippedRail[]): TrippedRail[] =>
  tripped.filter(isDeleteRail);
