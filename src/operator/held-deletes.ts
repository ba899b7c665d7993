/**
 * Deletes a safety rail holds, for the operator (`docsync deletes`, the status page):
 *
 *   listHeldDeletes(deps)                                → HeldDeleteView[]  oldest hold first
 *   chooseHeldDeletes(deps, selection)                   → HeldDelete[]      what a decision takes
 *   decideEachEntity(deps, rows, decision, exclusive)    → Decided           approve: they go
 *        through once, past the rails; discard: they are not done, both sides kept whole
 *
 * `selection` is a list of document ids, or `'all'` for those waiting for a person (changing a
 * decision takes its id; so does deciding on a delete still in its hold time under the daemon).
 * A decision is only written to the state database, each entity's under its lock: the entity's
 * next sync acts on it (the daemon syncs those entities at once, and a `docsync run --once` acts
 * on them too). An id that names no held delete throws OperatorError, and nothing is decided.
 * What a delete does to a folder the service deleted follows `onRemoteDelete`, and so do the
 * words for it.
 */

import { OperatorError } from '../domain/errors.js';
import {
  type DeleteSide,
  type HeldDecision,
  type HeldDelete,
  heldKey,
} from '../domain/held-deletes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { EntityLease } from '../engine/entity-locks.js';
import { type ExclusiveRunner, type OperatorDeps, syncWanted } from './operator-deps.js';

export interface HeldDeleteView
  extends Omit<HeldDelete, 'firstHeldAt' | 'lastHeldAt' | 'decidedAt' | 'dueAt'> {
  /**
   * Under the daemon, a removed folder's delete waits its hold time before it counts: when that
   * ends. Null: a rail holds the delete until a person decides.
   */
  readonly waitingUntil: string | null;
  readonly firstHeldAt: string;
  readonly lastHeldAt: string;
  readonly decidedAt: string | null;
  /** What the delete would do, in words. */
  readonly would: string;
  /** What approving and discarding it do. */
  readonly ifApproved: string;
  readonly ifDiscarded: string;
}

export interface Decided {
  readonly decision: HeldDecision;
  readonly held: readonly HeldDeleteView[];
  /** The entities concerned: a caller inside the daemon asks for their syncs. */
  readonly owners: readonly OwnerRef[];
  /** When it happens. */
  readonly next: string;
}

/**
 * Document ids, which may change a decision already taken; or `'all'`: every delete a rail holds
 * that nobody has decided on yet (a discarded one stays discarded, an approved one approved; one
 * still in its hold time is not asked about).
 */
export type Selection = readonly string[] | 'all';

export function listHeldDeletes(deps: OperatorDeps): HeldDeleteView[] {
  return deps.state.heldDeletes.list().map((row) => viewOf(row, deps.onRemoteDelete));
}

/**
 * The held deletes a selection names, as a decision would take them; throws OperatorError when
 * it names none (or an id that is not held). Nothing is decided.
 */
export function chooseHeldDeletes(deps: OperatorDeps, selection: Selection): HeldDelete[] {
  const rows = deps.state.heldDeletes.list();
  const chosen =
    selection === 'all'
      ? rows.filter((r) => r.decision === null && r.dueAt === null)
      : pick(rows, selection);
  if (chosen.length === 0)
    throw new OperatorError(
      'NOTHING_HELD',
      rows.length === 0
        ? 'No delete is held; nothing to decide.'
        : 'No held delete is waiting for a decision; to change one already decided, name it by document id (`docsync deletes list` shows them).',
      {
        notFound: true,
        onPage:
          'No delete is waiting for a decision any more; reload the page to see what is held now.',
      },
    );
  return chosen;
}

/**
 * Decides these held deletes, each entity's under its own lock (`exclusive`), one entity after
 * the other: a decision never lands in the middle of that entity's sync, and no two entity locks
 * are held at once.
 */
export async function decideEachEntity(
  deps: OperatorDeps,
  rows: readonly HeldDelete[],
  decision: HeldDecision,
  exclusive: ExclusiveRunner,
): Promise<Decided> {
  const byOwner = new Map<string, { owner: OwnerRef; ids: string[] }>();
  for (const row of rows) {
    const group = byOwner.get(ownerKey(row.owner)) ?? { owner: row.owner, ids: [] };
    group.ids.push(row.documentId);
    byOwner.set(ownerKey(row.owner), group);
  }
  const parts: Decided[] = [];
  for (const { owner, ids } of byOwner.values())
    parts.push(await exclusive(owner, async (lease) => decide(deps, lease, ids, decision)));
  return {
    decision,
    held: parts.flatMap((p) => p.held),
    owners: parts.flatMap((p) => p.owners),
    next: parts[0]?.next ?? NEXT,
  };
}

/** One entity's part, under its lease: every delete chosen must be of that entity. */
function decide(
  deps: OperatorDeps,
  lease: EntityLease,
  selection: Selection,
  decision: HeldDecision,
): Decided {
  const chosen = chooseHeldDeletes(deps, selection);
  for (const row of chosen)
    deps.locks.assertHeld(row.owner, lease, `decide the held delete of ${row.documentId}`);
  deps.state.heldDeletes.decide(chosen, decision, deps.now());
  const owners = new Map(chosen.map((r) => [ownerKey(r.owner), r.owner]));
  for (const owner of owners.values()) syncWanted(deps, owner);
  const keys = new Set(chosen.map((c) => heldKey(c.side, c.documentId)));
  const decided = deps.state.heldDeletes
    .list()
    .filter((r) => keys.has(heldKey(r.side, r.documentId)));
  return {
    decision,
    held: decided.map((row) => viewOf(row, deps.onRemoteDelete)),
    owners: [...owners.values()],
    next: NEXT,
  };
}

const NEXT =
  'a running daemon acts on it within seconds (it syncs those companies and trusts); otherwise the next `docsync run --once` does';

function pick(rows: readonly HeldDelete[], ids: readonly string[]): HeldDelete[] {
  const wanted = new Set(ids);
  const held = new Set(rows.map((r) => r.documentId));
  const unknown = [...wanted].filter((id) => !held.has(id));
  if (unknown.length > 0)
    throw new OperatorError(
      'NOT_HELD',
      `No held delete is for document ${unknown.join(', ')}; \`docsync deletes list\` shows the held ones (nothing decided).`,
      {
        notFound: true,
        onPage:
          'Those deletes are no longer held (nothing decided); reload the page to see what is held now.',
      },
    );
  return rows.filter((r) => wanted.has(r.documentId));
}

type HeldWords = Pick<HeldDeleteView, 'would' | 'ifApproved' | 'ifDiscarded'>;

/** `onRemoteDelete` of the configuration: what a `local` delete does to the folder. */
export type LocalDeleteMode = OperatorDeps['onRemoteDelete'];

const FOR_GOOD = 'onRemoteDelete is "delete"';

const WOULD: Record<DeleteSide, (r: HeldDelete, mode: LocalDeleteMode) => HeldWords> = {
  local: (r, mode) => ({
    would:
      mode === 'trash'
        ? `move ${r.folder} to the trash: the service deleted the document`
        : `delete ${r.folder} for good (${FOR_GOOD}): the service deleted the document`,
    ifApproved:
      mode === 'trash'
        ? 'the folder goes to .docsync/trash/ (kept 30 days)'
        : `the folder is deleted for good, not kept in .docsync/trash/ (${FOR_GOOD})`,
    ifDiscarded:
      'the folder stays, and the next sync creates the document in the service again from it (a new id, its files, its status)',
  }),
  remote: (r) => ({
    would: `delete the document in the service: its folder ${r.folder} was removed from the store`,
    ifApproved:
      'the document is deleted in the service, after its copy is saved in .docsync/trash/',
    ifDiscarded: 'the document stays in the service, and the next sync downloads its folder again',
  }),
};

/** What the held delete would do, and what approving or discarding it does, in words. */
export function describeHeldDelete(row: HeldDelete, mode: LocalDeleteMode): HeldWords {
  return WOULD[row.side](row, mode);
}

/**
 * What approving deletes of these sides keeps, in words: the trash has the service's copy of
 * everything deleted there, and a folder the service deleted unless `onRemoteDelete` is
 * "delete".
 */
export function whatApprovingKeeps(sides: Iterable<DeleteSide>, mode: LocalDeleteMode): string {
  const has = new Set(sides);
  if (mode === 'trash' || !has.has('local'))
    return 'what they remove is kept in .docsync/trash/ first';
  if (!has.has('remote'))
    return `the folders are deleted for good, not kept in .docsync/trash/ (${FOR_GOOD})`;
  return `a folder whose document the service deleted is deleted for good (${FOR_GOOD}); the service's copy of a document deleted there is kept in .docsync/trash/ first`;
}

function viewOf(row: HeldDelete, mode: LocalDeleteMode): HeldDeleteView {
  const iso = (ms: number) => new Date(ms).toISOString();
  const { dueAt, ...rest } = row;
  return {
    ...rest,
    waitingUntil: dueAt === null ? null : iso(dueAt),
    firstHeldAt: iso(row.firstHeldAt),
    lastHeldAt: iso(row.lastHeldAt),
    decidedAt: row.decidedAt === null ? null : iso(row.decidedAt),
    ...describeHeldDelete(row, mode),
  };
}
