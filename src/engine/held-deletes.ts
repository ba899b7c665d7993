/**
 * The deletes a cycle's rails hold, kept in the state for `docsync deletes` (domain/
 * held-deletes.ts), and the decisions a person took on them, read back before planning. Only
 * the delete rails' holds are kept: those `--force-deletes` would lift. What the empty-listing
 * rail holds is a listing the service got wrong far more often than a firm deleting everything,
 * and nobody should approve that.
 */
import { HELD_ADVICE, type TrippedRail } from '../domain/check-safety.js';
import {
  decisionsOf,
  deleteSideOf,
  type HeldDecisions,
  type HeldDelete,
  type HeldDeleteFacts,
  heldKeyOf,
  settledHeldDeletes,
} from '../domain/held-deletes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { heldByRails, type RailOptions } from './cycle-rails.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityOutcome } from './execute-entity.js';
import type { EntityJob, PlanEntityOptions } from './plan-entity.js';

/** The held deletes as a cycle begins, with the decisions taken and not yet carried out. */
export interface CycleDecisions extends HeldDecisions {
  /** Document ids to ask the service about, by `ownerKey`: an incremental listing hides them. */
  readonly idsByOwner: ReadonlyMap<string, ReadonlySet<string>>;
  /** Every held delete, by `ownerKey`: what each entity's sync may settle. */
  readonly heldByOwner: ReadonlyMap<string, readonly HeldDelete[]>;
}

/**
 * One small read per cycle (the table holds what rails hold now, usually nothing), so an
 * entity's sync costs no statement for held deletes unless it has some.
 */
export function readDecisions(deps: EngineDeps): CycleDecisions {
  const held = deps.state.heldDeletes.list();
  const idsByOwner = new Map<string, Set<string>>();
  const heldByOwner = new Map<string, HeldDelete[]>();
  for (const row of held) {
    const key = ownerKey(row.owner);
    heldByOwner.set(key, [...(heldByOwner.get(key) ?? []), row]);
    if (row.decision !== null)
      idsByOwner.set(key, (idsByOwner.get(key) ?? new Set()).add(row.documentId));
  }
  return { ...decisionsOf(held), idsByOwner, heldByOwner };
}

/**
 * What an entity's planning takes from the held deletes: the documents it asks the service
 * about one by one (those `deleteDocument` webhooks named, `announced`, and those of held
 * deletes decided on), and the deletes a person discarded (rows 53, 54).
 */
export function heldDeletePlanning(
  decisions: CycleDecisions,
  owner: OwnerRef,
  announced: ReadonlySet<string> | undefined,
): Pick<PlanEntityOptions, 'deletedIds' | 'discardedDeletes'> {
  const decided = decisions.idsByOwner.get(ownerKey(owner));
  const deletedIds =
    decided && announced ? new Set([...decided, ...announced]) : (decided ?? announced);
  return { ...(deletedIds ? { deletedIds } : {}), discardedDeletes: decisions.discarded };
}

/** Keeps the deletes the delete rails hold in these jobs; returns how many. */
export function recordHeldDeletes(
  deps: EngineDeps,
  jobs: readonly EntityJob[],
  tripped: readonly TrippedRail[],
  options: RailOptions,
): number {
  const deleteRails = tripped.filter(
    (t) => t.rail === 'delete-count' || t.rail === 'delete-percent',
  );
  if (deleteRails.length === 0) return 0;
  const held: HeldDeleteFacts[] = [];
  for (const job of jobs) {
    const holds = heldByRails(job, deleteRails, options);
    if (holds === null) continue;
    for (const action of job.plan.actions) {
      const side = deleteSideOf(action);
      const documentId = action.documentId;
      if (side === null || documentId === null || !holds(action)) continue;
      const reason = deleteRails
        .filter((t) => t.side === side)
        .map((t) => t.message.replace(`; ${HELD_ADVICE}`, ''))
        .join('; ');
      const folder = ('folder' in action ? action.folder : null) ?? '';
      const { documentName, owner } = action;
      held.push({ owner, documentId, side, folder, documentName, reason });
    }
  }
  deps.state.heldDeletes.hold(held, deps.now());
  return held.length;
}

/**
 * After the entities' syncs: forgets the held deletes that were carried out or whose cause went
 * away (settledHeldDeletes). Runs after the deletes, so a delete done has left the base, and a
 * discarded delete undone (its restore in step) is settled at once.
 */
export function settleHeldDeletes(
  deps: EngineDeps,
  decisions: CycleDecisions,
  jobs: readonly EntityJob[],
  outcomes: readonly EntityOutcome[],
): void {
  for (const [i, outcome] of outcomes.entries())
    settleEntity(deps, decisions, jobs[i]!, outcome.notInStep);
}

function settleEntity(
  deps: EngineDeps,
  decisions: CycleDecisions,
  job: EntityJob,
  notInStep: ReadonlySet<string>,
): void {
  const kept = decisions.heldByOwner.get(ownerKey(job.owner)) ?? [];
  if (job.plan.held || kept.length === 0) return;
  const planned = new Set(job.plan.actions.flatMap((a) => heldKeyOf(a) ?? []));
  // A restore that did not get through keeps its record: the next sync tries it again.
  const restoring = new Set(
    job.plan.actions.flatMap((a) =>
      a.kind === 'restore-document' && a.documentId && notInStep.has(a.documentId)
        ? [a.documentId]
        : [],
    ),
  );
  const judged = job.deletionsJudged;
  const settled = settledHeldDeletes(kept, {
    planned,
    restoring,
    inBase: (id) => deps.state.base.get(id) !== null,
    judged: (side, id) => side === 'remote' || judged === 'all' || judged.has(id),
  });
  deps.state.heldDeletes.remove(settled);
}
