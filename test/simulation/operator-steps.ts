/**
 * An operator's decisions, as the simulation makes them: resolving a conflict on the status page
 * (the page's "Keep …" button: under the entity's lock, then a sync of it) or with `docsync
 * conflicts resolve`, and approving held deletes with `docsync deletes approve --all`. A command
 * beside a running daemon hands its decision over as the real one does (commands/operator-app.ts,
 * `decide`): it records the request in the state, and the daemon's decision watch carries it out
 * under the entity's lock within half a second (daemon/decision-watch.ts), writes the outcome the
 * command prints, and syncs the entities it touched.
 */
import type { ConflictChoice } from '../../src/domain/plan-resolution.js';
import {
  type DecisionRequest,
  decodeOutcome,
  encodeRequest,
} from '../../src/operator/decisions.js';
import type { SeedRun } from './seed-run.js';
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
  const life = run.world.life;
  run.note(`operator: page resolves conflict ${id} ${choice}`);
  void life.page.resolveConflict({ conflictId: id, resolution: choice }).then(
    (outcome) => {
      run.note(`  page: ${outcome.kind}`);
      if (outcome.kind === 'done' && outcome.syncAfter && !life.dead)
        void life.daemon.request({ trigger: 'manual', owner: outcome.syncAfter });
    },
    (error: unknown) => {
      // The daemon died with the request in hand: the browser gets no answer, as from a
      // process that is gone. Any other failure is the page's to answer.
      if (life.dead) run.note('  page: no answer, the daemon crashed');
      else run.ledger.found(PAGE_ANSWERS, `conflict ${id}: ${(error as Error).message}`);
    },
  );
  await run.settle();
}
