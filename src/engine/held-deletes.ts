/**
 * The deletes a cycle's rails hold, kept in the state for `docsync deletes` (domain/
 * held-deletes.ts), and the decisions a person took on them, read back before planning. Only
 * the delete rails' holds are kept: those `--force-deletes` would lift. What the empty-listing
 * rail holds is a listing the service got wrong far more often than a firm deleting everything,
 * and nobody should approve that. Under the daemon, the deletes of removed folders in their hold
 * time are kept beside them (with when the hold ends), so `docsync status`, the page and the
 * daemon's timer see them.
 */
import { isDeleteRail, type TrippedRail } from '../domain/check-safety.js';
import { waitingReason } from '../domain/delete-hold.js';
import {
  type DeleteSide,
  decisionsOf,
  deleteSideOf,
  type HeldDecisions,
  type HeldDelete,
  type HeldDeleteFacts,
  heldKey,
  heldKeyOf,
  settledHeldDeletes,
  type WaitingDeleteFacts,
} from '../domain/held-deletes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { deleteRailsOf, heldByRails, type RailOptions, type RailVerdict } from './cycle-rails.js';
import type { DeleteWindow } from './delete-window.js';
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

/** What a cycle kept of its rails' verdict. */
export interface HoldsKept {
  /** Deletes the delete rails hold for a person: this cycle's, and those in their hold elsewhere. */
  readonly held: number;
  /** Of those, the ones no rail held before. */
  readonly newlyHeld: number;
  /** Deletes whose hold time began in this cycle. */
  readonly begunWaiting: readonly WaitingDeleteFacts[];
}

/**
 * Keeps the deletes the delete rails hold in these jobs, and those in their hold time. A rail
 * holding one side holds every delete of that side still in its hold, anywhere in the store:
 * they were part of what it judged.
 */
export function recordHeldDeletes(
  deps: EngineDeps,
  jobs: readonly EntityJob[],
  verdict: RailVerdict,
  options: RailOptions,
): HoldsKept {
  const { heldDeletes } = deps.state;
  const deleteRails = deleteRailsOf(verdict.tripped);
  const holdMs = options.deleteWindow?.holdMs ?? 0;
  const held: HeldDeleteFacts[] = [];
  const waiting: (WaitingDeleteFacts & { readonly first: boolean })[] = [];
  let newlyHeld = 0;
  for (const job of jobs) {
    const holds = deleteRails.length > 0 ? heldByRails(job, deleteRails, options) : null;
    for (const action of job.plan.actions) {
      const side = deleteSideOf(action);
      const documentId = action.documentId;
      if (side === null || documentId === null) continue;
      const key = heldKey(side, documentId);
      if (verdict.stillHeld.has(key)) continue; // kept as a rail held it, for a person
      const folder = ('folder' in action ? action.folder : null) ?? '';
      const facts = { owner: action.owner, documentId, side, folder };
      const documentName = action.documentName;
      if (holds?.(action)) {
        const reason = reasonOf(deleteRails, side);
        if (heldDeletes.undecided(documentId, side)?.dueAt !== null) newlyHeld += 1;
        held.push({ ...facts, documentName, reason });
        continue;
      }
      const wait = verdict.waiting.get(key);
      if (wait === undefined) continue;
      const reason = waitingReason(wait.until, holdMs);
      waiting.push({ ...facts, documentName, reason, dueAt: wait.until, first: wait.first });
    }
  }
  const now = deps.now();
  heldDeletes.hold(held, now);
  heldDeletes.wait(waiting, now);
  let elsewhere = 0;
  for (const side of new Set(deleteRails.flatMap((t) => (t.side ? [t.side] : []))))
    elsewhere += heldDeletes.holdWaiting(side, reasonOf(deleteRails, side), now);
  return {
    held: held.length + elsewhere,
    newlyHeld: newlyHeld + elsewhere,
    begunWaiting: waiting.filter((w) => w.first),
  };
}

/**
 * The verdict and what was kept of it, in the log. Under the daemon an entity's sync judges its
 * held deletes again each time it runs: a rail that only holds again what it held already is
 * not news.
 */
export function logHolds(
  log: EngineDeps['logger'],
  verdict: RailVerdict,
  kept: HoldsKept,
  window: DeleteWindow | undefined,
): void {
  const news = !window || kept.newlyHeld > 0;
  for (const rail of verdict.tripped) {
    const fields = { rail: rail.rail, heldDeletes: kept.held };
    if (news || !isDeleteRail(rail)) log.error(fields, rail.message);
    else log.debug(fields, rail.message);
  }
  const byOwner = new Map<string, WaitingDeleteFacts[]>();
  for (const w of kept.begunWaiting)
    byOwner.set(ownerKey(w.owner), [...(byOwner.get(ownerKey(w.owner)) ?? []), w]);
  const holdSeconds = (window?.holdMs ?? 0) / 1000;
  for (const [owner, waiting] of byOwner) {
    const until = new Date(Math.max(...waiting.map((w) => w.dueAt))).toISOString();
    const fields = { owner, folders: waiting.map((w) => w.folder), until };
    const why = `(safety.deleteHoldSeconds ${holdSeconds}), so that a mass delete is judged whole`;
    log.info(
      fields,
      waiting.length === 1
        ? `${waiting[0]!.folder} was removed from the store: its delete in the service waits until ${until} ${why}; putting the folder back cancels it`
        : `${waiting.length} document folders were removed from the store: their deletes in the service wait until ${until} ${why}; putting a folder back cancels its delete`,
    );
  }
}

/** The rails' findings on one side: a held delete's reason. */
function reasonOf(rails: readonly TrippedRail[], side: DeleteSide): string {
  return rails
    .filter((t) => t.side === side)
    .map((t) => t.reason ?? t.message)
    .join('; ');
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
    // A document whose details could not be read was not planned (row 56): its hold stands.
    judged: (side, id) =>
      !job.detailFailures.has(id) && (side === 'remote' || judged === 'all' || judged.has(id)),
  });
  deps.state.heldDeletes.remove(settled);
  for (const row of settled) {
    // Nobody decided and the document is still there: the cause went away, so say so.
    if (row.decision !== null || deps.state.base.get(row.documentId) === null) continue;
    deps.logger.info(
      { owner: ownerKey(row.owner), document: row.documentId },
      row.side === 'remote'
        ? `${row.folder} is back in the store (put back, or coming back after a change in the service): its delete in the service is dropped`
        : `the service has document ${row.documentId} again: moving ${row.folder} to the trash is dropped`,
    );
  }
}
