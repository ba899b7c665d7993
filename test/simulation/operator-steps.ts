/**
 * An operator's decisions, as the simulation makes them: resolving a conflict on the status page
 * (through the daemon's scheduler, like the page's button) or with `docsync conflicts resolve`
 * (another process, beside the daemon, as the CLI does today), and approving held deletes
 * (`docsync deletes approve`, which the daemon's decision watch picks up).
 */
import type { ConflictChoice } from '../../src/domain/plan-resolution.js';
import { resolveConflict } from '../../src/operator/conflicts.js';
import { approveHeldDeletes } from '../../src/operator/held-deletes.js';
import type { SeedRun } from './seed-run.js';

/** `docsync conflicts resolve ID CHOICE`: at once, whatever the daemon is doing. */
export async function cliResolve(run: SeedRun, id: number, choice: ConflictChoice): Promise<void> {
  const life = run.world.life;
  const conflict = life.state.conflicts.get(id);
  if (!conflict) throw new Error(`no conflict ${id}`);
  run.note(`operator: cli resolves conflict ${id} (${conflict.subject?.kind}) ${choice}`);
  const outcome = await run
    .operatorJob(life, conflict.owner, () => resolveConflict(life.cli, id, choice), 'cli')
    .then(
      () => 'done',
      (error: Error) => `refused: ${error.message}`,
    );
  run.note(`  cli: ${outcome}`);
  // Another process wrote the folder: the daemon's watcher hears it.
  const folder = life.state.base.get(conflict.documentId)?.folder;
  if (folder && run.world.running) life.watch.touch(`${run.world.root}/${folder}/.document.json`);
  await run.settle();
}

/** The page's "Keep …" button: waits its turn in the scheduler, then syncs the entity. */
export async function pageResolve(run: SeedRun, id: number, choice: ConflictChoice): Promise<void> {
  const life = run.world.life;
  run.note(`operator: page resolves conflict ${id} ${choice}`);
  void life.page.resolveConflict({ conflictId: id, resolution: choice }).then((outcome) => {
    run.note(`  page: ${outcome.kind}`);
    if (outcome.kind === 'done' && outcome.syncAfter && !life.dead)
      void life.daemon.request({ trigger: 'manual', owner: outcome.syncAfter });
  });
  await run.settle();
}

/** `docsync deletes approve --all`. */
export function approveAll(run: SeedRun): void {
  const life = run.world.life;
  const held = life.state.heldDeletes.list().filter((h) => h.decision === null);
  run.note(`operator: approves ${held.length} held deletes`);
  approveHeldDeletes(
    life.cli,
    held.map((h) => h.documentId),
  );
}
