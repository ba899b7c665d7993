/**
 * Safety rails (daemon.md "Sync rules"; style guide §4), checked on the plans of a cycle before
 * any action runs. Pure: the engine decides what a tripped rail stops.
 */
import {
  type DocumentPlan,
  type SyncAction,
  type SyncPlan,
  summariseActions,
} from './sync-actions.js';
import type { OwnerRef } from './types.js';

export interface SafetyPolicy {
  /** `safety.maxDeletePercent`: of the documents in the base of the checked plans. */
  readonly maxDeletePercent: number;
  /** `safety.maxDeleteCount`: per side. */
  readonly maxDeleteCount: number;
  /** `--force-deletes`: lifts the two delete rails, not the empty-listing one. */
  readonly forceDeletes: boolean;
}

export interface SafetyContext {
  /** The root and its `.docsync-root` marker exist (checked by the engine). */
  readonly markerPresent: boolean;
  /**
   * The daemon judges one entity's plan at a time, so the delete rails count what the
   * rolling window already let through on each side, and take the percentage over the whole
   * store's base; without these, over the plans given (a `--once` cycle has them all).
   */
  readonly window?: DeleteWindowContext;
}

/** What the daemon knows beyond the plans it judges now (engine/cycle-rails.ts). */
export interface DeleteWindowContext {
  /** Deletes the rails let through within the window, per side. */
  readonly local: number;
  readonly remote: number;
  readonly baseDocuments: number;
  /**
   * Deletes still in their hold time anywhere in the store, this cycle's included.
   * They count with the due ones, so the deletes of a burst are judged together, whichever
   * entity's sync they fall due in.
   */
  readonly inHold?: SideCounts;
  /**
   * When a delete rail held deletes on a side lately, the end of the window that started then:
   * until it, every delete on that side waits for a person.
   */
  readonly holdingUntil?: Partial<Record<'local' | 'remote', number>>;
  /** Until when a rail that trips now holds every further delete: a window from now. */
  readonly tripHoldsUntil?: number;
}

export interface SideCounts {
  readonly local: number;
  readonly remote: number;
}

export type RailName =
  | 'root-marker-missing'
  | 'delete-percent'
  | 'delete-count'
  | 'delete-rail-held'
  | 'empty-listing';

export interface TrippedRail {
  readonly rail: RailName;
  /** `no-run`: do nothing at all; `no-deletes`: run, but delete nothing the rail names. */
  readonly effect: 'no-run' | 'no-deletes';
  /** The side the deletes would happen on. */
  readonly side: 'local' | 'remote' | null;
  /** The entity, for the empty-listing rail; null for the whole cycle. */
  readonly owner: OwnerRef | null;
  readonly message: string;
  /** A delete rail's finding alone, without what to do: a held delete's reason. */
  readonly reason?: string;
}

/** The rails whose holds are kept for a person (`docsync deletes`), `--force-deletes` lifts. */
export const isDeleteRail = (t: TrippedRail): boolean =>
  t.rail === 'delete-count' || t.rail === 'delete-percent' || t.rail === 'delete-rail-held';

export type SafetyVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly tripped: readonly TrippedRail[] };

/**
 * What a person does about a delete rail. Not "run with --force-deletes": the daemon holds the
 * instance lock, so no second docsync can run; `docsync deletes` works beside it.
 */
export const DELETES_ADVICE =
  '`docsync deletes list` shows the held deletes, `docsync deletes approve` lets them through, `docsync deletes discard` keeps the documents';

export const HELD_ADVICE = `nothing was deleted: ${DELETES_ADVICE}`;

const localDelete = (a: SyncAction) => a.kind === 'trash-local-document';
const remoteDelete = (a: SyncAction) => a.kind === 'push-delete-document';

/** True for a plan whose full listing came back empty although the base had documents. */
export function listingLooksEmpty(plan: SyncPlan): boolean {
  return plan.stats.listedDocuments === 0 && plan.stats.baseDocuments > 0;
}

function deleteRails(
  plans: readonly SyncPlan[],
  policy: SafetyPolicy,
  window: DeleteWindowContext | undefined,
): TrippedRail[] {
  if (policy.forceDeletes) return [];
  const baseTotal = window?.baseDocuments ?? plans.reduce((n, p) => n + p.stats.baseDocuments, 0);
  const tripped: TrippedRail[] = [];
  const sides = [
    ['local', localDelete],
    ['remote', remoteDelete],
  ] as const;
  for (const [side, isDelete] of sides) {
    const planned = plans.reduce((n, p) => n + p.actions.filter(isDelete).length, 0);
    if (planned === 0) continue; // what the window let through before is not judged again
    const common = { effect: 'no-deletes', side, owner: null } as const;
    const holdingUntil = window?.holdingUntil?.[side];
    if (holdingUntil !== undefined) {
      // Once a rail holds, the deletes after it are not judged one slice at a time.
      const reason = `a delete rail held ${side} document deletes lately; until ${new Date(holdingUntil).toISOString()} every ${side} delete waits for a person`;
      tripped.push({
        rail: 'delete-rail-held',
        ...common,
        reason,
        message: `${reason}: ${DELETES_ADVICE}`,
      });
      continue;
    }
    const done = window?.[side] ?? 0;
    const count = planned + (window?.inHold?.[side] ?? 0) + done;
    const percent = baseTotal === 0 ? 0 : (count / baseTotal) * 100;
    const outcome = heldWords(count, done, side, window);
    if (count > policy.maxDeleteCount) {
      const reason = `${count} ${side} document deletes exceed safety.maxDeleteCount ${policy.maxDeleteCount}`;
      tripped.push({ rail: 'delete-count', ...common, reason, message: `${reason}; ${outcome}` });
    }
    if (percent > policy.maxDeletePercent) {
      const reason = `${count} of ${baseTotal} documents (${Math.round(percent)}%) would be deleted ${side}ly, over safety.maxDeletePercent ${policy.maxDeletePercent}`;
      tripped.push({ rail: 'delete-percent', ...common, reason, message: `${reason}; ${outcome}` });
    }
  }
  return tripped;
}

/**
 * What a tripped delete rail did, truthfully: a `--once` cycle holds every delete it judged; the
 * daemon's count also has the deletes its window let through already, which were done.
 */
function heldWords(
  count: number,
  done: number,
  side: 'local' | 'remote',
  window: DeleteWindowContext | undefined,
): string {
  if (!window) return HELD_ADVICE;
  const held = count - done;
  const what =
    done === 0
      ? `${held} held, none of them deleted`
      : `${done} of them deleted already within the window, the other ${held} held`;
  const until =
    window.tripHoldsUntil === undefined
      ? ''
      : ` until ${new Date(window.tripHoldsUntil).toISOString()}`;
  return `${what}; they wait for a person, and so does every further ${side} delete${until}: ${DELETES_ADVICE}`;
}

/**
 * Checks the plans of one cycle (one plan per entity, or all of them: the percentage is taken
 * over the base documents of the plans given, so check the whole cycle at once).
 */
export function checkSafety(
  plans: SyncPlan | readonly SyncPlan[],
  context: SafetyContext,
  policy: SafetyPolicy,
): SafetyVerdict {
  const list: readonly SyncPlan[] = Array.isArray(plans) ? plans : [plans as SyncPlan];
  const tripped: TrippedRail[] = [];
  if (!context.markerPresent) {
    const message = 'the store root or its .docsync-root marker is missing; nothing runs';
    tripped.push({
      rail: 'root-marker-missing',
      effect: 'no-run',
      side: null,
      owner: null,
      message,
    });
  }
  for (const plan of list) {
    // An empty listing for an entity that had documents is far likelier a service fault than a
    // firm deleting everything; only deletes known from the listing are held back.
    if (
      listingLooksEmpty(plan) &&
      plan.actions.some((a) => localDelete(a) && a.source === 'full-listing')
    ) {
      const message = `the service listed no documents for ${plan.owner.kind} ${plan.owner.id}, which had ${plan.stats.baseDocuments}; nothing deleted`;
      tripped.push({
        rail: 'empty-listing',
        effect: 'no-deletes',
        side: 'local',
        owner: plan.owner,
        message,
      });
    }
  }
  tripped.push(...deleteRails(list, policy, context.window));
  return tripped.length === 0 ? { ok: true } : { ok: false, tripped };
}

const isDocumentDelete = (a: SyncAction) => localDelete(a) || remoteDelete(a);

/**
 * Whether a rail could hold this document back: only documents that delete one. The others can
 * run while the rest of the cycle is still being planned, before the rails have seen it all.
 */
export const railsMayHold = (document: DocumentPlan): boolean =>
  document.actions.some(isDocumentDelete);

/**
 * The plan without its document deletes, for a cycle that runs on after a `no-deletes` rail.
 * A document whose delete is held keeps its base, so the next cycle decides again.
 */
export function withoutDeletes(plan: SyncPlan, only?: (a: SyncAction) => boolean): SyncPlan {
  const dropped = (a: SyncAction) => isDocumentDelete(a) && (only === undefined || only(a));
  const documents = plan.documents.filter((d) => !d.actions.some(dropped)).map((d) => ({ ...d }));
  const actions = documents.flatMap((d) => d.actions);
  return { ...plan, documents, actions, summary: summariseActions(actions) };
}
