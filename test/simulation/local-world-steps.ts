/**
 * The random steps of the local side and the operator (docs/simulation.md, "What a seed may
 * do"): the folder's disk failing or healed (disk-faults.ts), and a person's decisions: whatever
 * waits for them is likely decided soon (operator-steps.ts), and now and then an item of the
 * trash is put back. Each spends one of the seed's injections.
 */
import { pick } from '../../src/simulator/random.js';
import { localDocs } from '../chaos/local-edits.js';
import { DISK_FAULTS } from './disk-faults.js';
import { decide, decisionsWaiting, restoreFromTrash, trashHasItems } from './operator-steps.js';
import type { SeedRun } from './seed-run.js';

type Inject = (weight: number, kind: string | null, act: () => Promise<void>) => void;

export function localWorldSteps(run: SeedRun, inject: Inject): void {
  inject(0.3, null, async () => diskFault(run));
  if (!run.world.running) return;
  // A decision waiting is one a person is likely to take soon, whatever else happens.
  if (decisionsWaiting(run)) inject(3, null, () => decide(run));
  if (trashHasItems(run)) inject(0.1, null, () => restoreFromTrash(run));
}

/** The disk starts failing as one of DISK_FAULTS says, or heals. */
function diskFault(run: SeedRun): void {
  const [label, fault] = pick(run.random, DISK_FAULTS);
  if (fault?.locked === undefined) {
    run.count(`disk: ${label}`);
    run.note(`disk: ${label}`);
    run.disk.set(fault);
    return;
  }
  const files = localDocs(run.view).flatMap((doc) =>
    [...doc.files.keys()].map((file) => `${doc.folder}/${file}`),
  );
  if (files.length === 0) {
    run.note(`disk: ${label} (no file to lock)`);
    return;
  }
  const locked = pick(run.random, files);
  run.count(`disk: ${label}`);
  run.note(`disk: ${label}: ${locked}`);
  run.disk.set({ ...fault, locked });
}
