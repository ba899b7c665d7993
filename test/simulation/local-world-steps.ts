/**
 * The random steps of the local side and the operator (docs/simulation.md, "What a seed may
 * do"): the folder's disk failing or healed (disk-faults.ts), several document folders deleted
 * at once (what the delete rails are for), one file changed on both sides (a conflict, its copy
 * made by a rename), and a person's decisions: whatever waits for them is likely decided soon
 * (operator-steps.ts), and now and then an item of the trash is put back. Each spends one of
 * the seed's injections.
 */
import { pick } from '../../src/simulator/random.js';
import { content, localDocs } from '../chaos/local-edits.js';
import { sha256 } from '../helpers/sync-harness.js';
import { editableDocs } from './away-steps.js';
import { DISK_FAULTS } from './disk-faults.js';
import { decide, decisionsWaiting, restoreFromTrash, trashHasItems } from './operator-steps.js';
import { deleteFolderKept } from './recycle-bin.js';
import type { SeedRun } from './seed-run.js';

type Inject = (weight: number, kind: string | null, act: () => Promise<void>) => void;

/** `lean(step)`: the seed's factor for a kind of step (seed-profile.ts). */
export function localWorldSteps(
  run: SeedRun,
  inject: Inject,
  lean: (step: string) => number,
): void {
  inject(0.3 * lean('disk fault'), null, async () => diskFault(run));
  if (run.chaos.entityFolders.length > 0) {
    inject(0.3 * lean('several folders deleted'), null, () => severalFoldersDeleted(run));
    // A clean-up goes on in batches, likeliest within the rails' window.
    const more = moreFoldersWeight(run);
    if (more > 0) inject(more, null, () => moreFoldersDeleted(run));
    inject(0.3 * lean('both sides'), null, () => oneFileChangedOnBothSides(run));
    inject(0.2 * lean('both sides status'), null, () => oneStatusChangedOnBothSides(run));
  }
  if (!run.world.running) return;
  // A decision waiting is one a person is likely to take soon, whatever else happens.
  if (decisionsWaiting(run)) inject(3 * lean('decision'), null, () => decide(run));
  if (trashHasItems(run)) inject(0.1 * lean('trash restore'), null, () => restoreFromTrash(run));
}

/**
 * Once the world is at rest, a person looks at the page once more and, more often than not,
 * decides something that waits for them (a delete a rail held in the last rounds, a conflict).
 */
export async function lastLook(run: SeedRun): Promise<boolean> {
  if (!run.world.running || !decisionsWaiting(run) || run.random() >= 0.7) return false;
  run.note('operator: a last look at what waits');
  await decide(run);
  return true;
}

/**
 * A person deletes several document folders at once (a clean-up, or a folder dragged away): at
 * the rails' defaults a burst over half the store is held for a person.
 */
async function severalFoldersDeleted(run: SeedRun): Promise<void> {
  const docs = leftToDelete(run);
  // Half the time every folder that may go (over half the store), else some of them.
  const share = run.random() < 0.5 ? 1 : 0.6;
  const chosen = docs.filter(() => run.random() < share);
  if (chosen.length < 2) {
    run.note('local edit: several folders deleted (fewer than two to delete)');
    return;
  }
  for (const doc of chosen) await deleteFolderKept(run, doc);
  run.note(`local edit: ${chosen.length} folders deleted: ${chosen.map((d) => d.id).join(', ')}`);
  run.count('local: several folders deleted');
  cleanUps.set(run, Date.now());
  await run.settle();
}

/**
 * When a person last deleted several folders at once: a clean-up that may go on in batches,
 * each under a rail, together over it (the rails judge a burst whole, invariant 15).
 */
const cleanUps = new WeakMap<SeedRun, number>();

/** How long after a batch the next one is likely: within the rails' shortest window. */
const CLEAN_UP_GOES_ON_MS = 4 * 60_000;

const leftToDelete = (run: SeedRun) =>
  editableDocs(run).filter((doc) => !run.chaos.keepers.has(doc.id));

/** Likely while a clean-up is under way and folders are left to go; else never. */
function moreFoldersWeight(run: SeedRun): number {
  const at = cleanUps.get(run);
  if (at === undefined || Date.now() - at > CLEAN_UP_GOES_ON_MS) return 0;
  return leftToDelete(run).length > 0 ? 2 : 0;
}

/** The next batch of a clean-up: half the time every folder left that may go, else some. */
async function moreFoldersDeleted(run: SeedRun): Promise<void> {
  const docs = leftToDelete(run);
  const share = run.random() < 0.5 ? 1 : 0.6;
  const picked = docs.filter(() => run.random() < share);
  const chosen = picked.length > 0 ? picked : [pick(run.random, docs)];
  for (const doc of chosen) await deleteFolderKept(run, doc);
  run.note(
    `local edit: ${chosen.length} more folders deleted: ${chosen.map((d) => d.id).join(', ')}`,
  );
  run.count('local: more folders deleted');
  cleanUps.set(run, Date.now());
  await run.settle();
}

/**
 * A person replaces a file of a synced document, and a service user replaces the same
 * attachment, before docsync hears of either: a conflict, whose copy is made by a rename and
 * which waits for a person's decision. A quarter of the time the service user removes it
 * instead: the person's edit beats the removal, uploaded as a new attachment, its conflict
 * recorded (row 33). The service's webhooks wait in the queue.
 */
async function oneFileChangedOnBothSides(run: SeedRun): Promise<void> {
  const service = new Map((await run.view.remote()).documents.map((d) => [d.id, d]));
  const both = editableDocs(run).flatMap((doc) =>
    (service.get(doc.id)?.attachments ?? [])
      .filter((a) => a.kind === 'user' && doc.files.get(a.name) === a.sha256)
      .map((a) => ({ doc, a })),
  );
  if (both.length === 0) {
    run.note('both sides: one file changed (no file agreed on both sides)');
    return;
  }
  const { doc, a } = pick(run.random, both);
  const ours = content(run.chaos, 'local both');
  const theirs = content(run.chaos, 'remote both');
  run.ledger.deleted(a.sha256);
  const local = () => {
    run.view.write(`${doc.folder}/${a.name}`, ours);
    run.ledger.wrote(sha256(ours), `local ${doc.folder}/${a.name}`);
  };
  const removed = run.random() < 0.25;
  const remote = () => {
    run.view.sim.admin.deleteAttachment(doc.id, a.id);
    if (removed) return;
    run.view.sim.admin.addAttachment(doc.id, { name: a.name, bytes: theirs, system: false });
    run.ledger.wrote(sha256(theirs), `remote ${doc.id}/${a.name}`);
  };
  // The later change wins: the folder's keeps the name and the service's becomes the copy (row
  // 43), or the folder's file is renamed to the copy (row 42). A removal loses either way.
  const later = oneSecondApart(run, local, remote);
  const what = removed ? 'replaced, removed in the service' : 'changed';
  run.note(`both sides: ${doc.folder}/${a.name} ${what}, ${later} a second later`);
  run.count(`both sides: one file ${what}`);
  await run.settle();
}

/**
 * A person types a status in a synced document's `.document.json`, and a service user sets
 * another, before docsync hears of either: the later one wins (row 23 or 24), the other is
 * recorded as the conflict it lost. The service's webhook waits in the queue.
 */
async function oneStatusChangedOnBothSides(run: SeedRun): Promise<void> {
  const dump = await run.view.remote();
  const service = new Map(dump.documents.map((d) => [d.id, d]));
  const docs = editableDocs(run).filter((doc) => {
    const typed = run.view.meta(doc.folder).status ?? '';
    return typed.toLowerCase() === (service.get(doc.id)?.status?.type ?? '').toLowerCase();
  });
  if (docs.length === 0 || dump.statusTypes.length < 3) {
    run.note('both sides: one status changed (no status agreed on both sides)');
    return;
  }
  const doc = pick(run.random, docs);
  const current = (run.view.meta(doc.folder).status ?? '').toLowerCase();
  const others = dump.statusTypes.filter((t) => t.name.toLowerCase() !== current);
  const ours = pick(run.random, others);
  const theirs = pick(
    run.random,
    others.filter((t) => t.id !== ours.id),
  );
  const local = () => run.view.editMeta(doc.folder, (meta) => ({ ...meta, status: ours.name }));
  const remote = () => run.view.sim.admin.assignStatus(doc.id, { typeId: theirs.id });
  const later = oneSecondApart(run, local, remote);
  run.note(
    `both sides: ${doc.folder} status ${ours.name} here, ${theirs.name} there, ${later} a second later`,
  );
  run.count('both sides: one status changed');
  await run.settle();
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

/** Both sides' changes, a second apart, in an order the seed draws; says which came later. */
function oneSecondApart(run: SeedRun, local: () => void, remote: () => void): string {
  const serviceLater = run.random() < 0.5;
  const [first, second] = serviceLater ? [local, remote] : [remote, local];
  first();
  run.clock.pass(1000);
  second();
  return serviceLater ? 'the service' : 'the folder';
}
