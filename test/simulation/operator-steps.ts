/**
 * An operator's decisions, as the simulation makes them: resolving a conflict on the status page
 * (the page's "Keep …" button: under the entity's lock, then a sync of it) or with `docsync
 * conflicts resolve`; approving the deletes a rail holds on the page ("Approve" for an entity, or
 * "Approve all"), or approving or discarding them with `docsync deletes approve|discard` (all of
 * them, or some by document id, a delete still in its hold time among them); and putting an item
 * back with `docsync trash restore`. A command beside a running daemon hands its decision over as
 * the real one does (commands/operator-app.ts, `decide`): it records the request in the state,
 * and the daemon's decision watch carries it out under the entity's lock within half a second
 * (daemon/decision-watch.ts), writes the outcome the command prints, and syncs the entities it
 * touched.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { HeldDelete } from '../../src/domain/held-deletes.js';
import { ownerKey } from '../../src/domain/owner-key.js';
import { CONFLICT_CHOICES, type ConflictChoice } from '../../src/domain/plan-resolution.js';
import { TRASH_DIR } from '../../src/local/local-store.js';
import {
  type DecisionRequest,
  decodeOutcome,
  encodeRequest,
} from '../../src/operator/decisions.js';
import { listTrash } from '../../src/operator/trash.js';
import { pick } from '../../src/simulator/random.js';
import type { ActionOutcome } from '../../src/web/page-actions.js';
import type { SeedRun } from './seed-run.js';
import { filesUnder } from './sim-invariants.js';
import { PAGE_ANSWERS } from './sim-ledger.js';

/** How often the daemon's decision watch reads the state (daemon/decision-watch.ts). */
const DECISION_POLL_MS = 500;

/** `docsync conflicts resolve ID CHOICE` beside the running daemon. */
export async function cliResolve(run: SeedRun, id: number, choice: ConflictChoice): Promise<void> {
  const conflict = run.world.life.state.conflicts.get(id);
  if (!conflict) throw new Error(`no conflict ${id}`);
  run.note(`operator: cli resolves conflict ${id} (${conflict.subject?.kind}) ${choice}`);
  await handOver(run, { kind: 'resolve-conflict', conflictId: id, choice });
}

/** `docsync deletes approve --all` beside the running daemon. */
export async function approveAll(run: SeedRun): Promise<void> {
  const held = run.world.life.state.heldDeletes.list().filter((h) => h.decision === null);
  run.note(`operator: cli approves ${held.length} held deletes`);
  await handOver(run, { kind: 'decide-held-deletes', decision: 'approve', selection: 'all' });
}

/** `docsync deletes approve|discard <id...>` (or `--all`) beside the running daemon. */
export async function cliDecideHeld(
  run: SeedRun,
  decision: 'approve' | 'discard',
  selection: readonly string[] | 'all',
): Promise<void> {
  const what = selection === 'all' ? '--all' : selection.join(' ');
  run.note(`operator: cli deletes ${decision} ${what}`);
  if (decision === 'discard') {
    const ids =
      selection === 'all'
        ? run.world.life.state.heldDeletes.list().map((h) => h.documentId)
        : selection;
    for (const id of ids) run.ledger.book.deleteDiscarded.add(id);
  }
  await handOver(run, {
    kind: 'decide-held-deletes',
    decision,
    selection: selection === 'all' ? 'all' : [...selection],
  });
}

/** `docsync trash restore <id>` beside the running daemon. */
export async function cliRestore(run: SeedRun, itemId: string): Promise<void> {
  run.note(`operator: cli trash restore ${itemId}`);
  // What comes back is the person's doing, also bytes a service user had removed.
  for (const sha of filesUnder(path.join(run.world.root, ...TRASH_DIR.split('/'), itemId)))
    run.ledger.book.broughtBack.add(sha);
  await handOver(run, { kind: 'restore-trash', itemId });
}

/**
 * What the command does while a daemon holds the store: records the decision, then waits for
 * the daemon's outcome. The wait is the daemon's poll: time passes until the decision watch
 * took the decision up; carrying it out may wait for the entity's sync under way, so the
 * outcome is noted when it comes (`noteDecisions`), at whatever step that is.
 */
async function handOver(run: SeedRun, request: DecisionRequest): Promise<void> {
  const { state } = run.world.life;
  const id = state.operatorDecisions.record(request.kind, encodeRequest(request), Date.now());
  run.decisionsHandedOver.set(id, request);
  await run.advance(DECISION_POLL_MS);
}

/** The outcomes of decisions handed over that the daemon has written since the last look. */
export function noteDecisions(run: SeedRun): void {
  if (!run.world.running) return;
  const { state } = run.world.life;
  for (const [id, request] of run.decisionsHandedOver) {
    const row = state.operatorDecisions.get(id);
    if (!row?.outcomeJson) continue;
    run.decisionsHandedOver.delete(id);
    const outcome = decodeOutcome(request.kind, row.outcomeJson);
    run.note(`  cli: decision ${id} ${outcome.ok ? 'done' : `refused: ${outcome.message}`}`);
  }
}

/** The page's "Keep …" button: under the entity's lock, then a sync of the entity. */
export async function pageResolve(run: SeedRun, id: number, choice: ConflictChoice): Promise<void> {
  run.note(`operator: page resolves conflict ${id} ${choice}`);
  await pageAction(run, `conflict ${id}`, (page) =>
    page.resolveConflict({ conflictId: id, resolution: choice }),
  );
}

/**
 * The page's "Approve" beside one entity's held deletes, or "Approve all" (`owner` null), with
 * what the page showed beside it: the deletes waiting for a person, and when the newest was held.
 */
export async function pageApprove(run: SeedRun, owner: HeldDelete['owner'] | null): Promise<void> {
  const waiting = waitingForPerson(run).filter(
    (h) => owner === null || ownerKey(h.owner) === ownerKey(owner),
  );
  const seen = {
    count: waiting.length,
    newest: waiting.reduce((newest, h) => Math.max(newest, h.firstHeldAt), 0),
  };
  run.note(
    `operator: page approves ${seen.count} held deletes of ${owner ? ownerKey(owner) : 'all'}`,
  );
  await pageAction(run, 'held deletes', (page) => page.approveHeldDeletes({ owner, seen }));
}

/** A button of the page, answered while the seed goes on; the entity it names is synced. */
async function pageAction(
  run: SeedRun,
  what: string,
  act: (page: SeedRun['world']['life']['page']) => Promise<ActionOutcome>,
): Promise<void> {
  const life = run.world.life;
  void act(life.page).then(
    (outcome) => {
      // A process that died with the request in hand answers nothing, whatever it had made of it.
      if (life.dead) {
        run.note('  page: no answer, the daemon crashed');
        return;
      }
      run.note(`  page: ${outcome.kind}`);
      if (outcome.kind === 'done' && !life.dead)
        for (const owner of outcome.syncAfter ?? [])
          void life.daemon.request({ trigger: 'manual', owner });
    },
    (error: unknown) => {
      // The daemon died with the request in hand: the browser gets no answer, as from a
      // process that is gone. Any other failure is the page's to answer.
      if (life.dead) run.note('  page: no answer, the daemon crashed');
      else run.ledger.found(PAGE_ANSWERS, `${what}: ${(error as Error).message}`);
    },
  );
  await run.settle();
}

/** Deletes a rail holds for a person, not decided yet (not those in their hold time). */
function waitingForPerson(run: SeedRun): HeldDelete[] {
  return run.world.life.state.heldDeletes
    .list()
    .filter((h) => h.decision === null && h.dueAt === null);
}

/** Whether a person has something to decide: an open conflict, a delete held undecided. */
export function decisionsWaiting(run: SeedRun): boolean {
  const { state } = run.world.life;
  return (
    state.conflicts.list(1, { open: true }).length > 0 ||
    state.heldDeletes.list().some((h) => h.decision === null)
  );
}

/** Whether the trash holds anything a person could put back. */
export function trashHasItems(run: SeedRun): boolean {
  const trash = path.join(run.world.root, ...TRASH_DIR.split('/'));
  return existsSync(trash) && readdirSync(trash).length > 0;
}

type Decision = readonly [weight: number, kind: string, act: () => Promise<void>];

/**
 * A person decides what waits for them, one of the ways they have: a conflict resolved on the
 * page or with the CLI (each choice); held deletes approved on the page (an entity's, or all),
 * or approved or discarded with the CLI (all, or some by id; a delete in its hold time by id).
 */
export async function decide(run: SeedRun): Promise<void> {
  const { state } = run.world.life;
  const decisions: Decision[] = [];
  const open = state.conflicts.list(100, { open: true });
  if (open.length > 0) {
    const conflict = pick(run.random, open);
    const choice = pick(run.random, CONFLICT_CHOICES);
    decisions.push([2, `page ${choice}`, () => pageResolve(run, conflict.id, choice)]);
    decisions.push([2, `cli ${choice}`, () => cliResolve(run, conflict.id, choice)]);
  }
  const held = state.heldDeletes.list().filter((h) => h.decision === null);
  const waiting = held.filter((h) => h.dueAt === null);
  if (waiting.length > 0) {
    const one = pick(run.random, waiting);
    decisions.push(
      [1, 'page approve held deletes of an entity', () => pageApprove(run, one.owner)],
      [1, 'page approve all held deletes', () => pageApprove(run, null)],
      [1, 'cli approve all held deletes', () => cliDecideHeld(run, 'approve', 'all')],
      [1, 'cli discard all held deletes', () => cliDecideHeld(run, 'discard', 'all')],
    );
  }
  if (held.length > 0) {
    const some = held.filter(() => run.random() < 0.5);
    const ids = (some.length > 0 ? some : [pick(run.random, held)]).map((h) => h.documentId);
    decisions.push(
      [1, 'cli approve held deletes by id', () => cliDecideHeld(run, 'approve', ids)],
      [1, 'cli discard held deletes by id', () => cliDecideHeld(run, 'discard', ids)],
    );
  }
  if (decisions.length === 0) return;
  let roll = run.random() * decisions.reduce((sum, [w]) => sum + w, 0);
  let chosen = decisions[decisions.length - 1]!;
  for (const decision of decisions) {
    roll -= decision[0];
    if (roll < 0) {
      chosen = decision;
      break;
    }
  }
  const [, kind, act] = chosen;
  run.count(`operator: ${kind}`);
  await act();
}

/** A person puts one item of the trash back (`docsync trash restore`). */
export async function restoreFromTrash(run: SeedRun): Promise<void> {
  const items = await listTrash(run.world.life.cli);
  if (items.length === 0) {
    run.note('operator: trash restore (the trash is empty)');
    return;
  }
  const item = pick(run.random, items);
  run.count(
    `operator: cli trash restore (${item.kind}${item.from === 'service' ? ", the service's copy" : ''})`,
  );
  await cliRestore(run, item.id);
}
