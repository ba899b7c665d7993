/**
 * A person's own recycle bin (docs/simulation.md, "What a seed may do"): a document folder they
 * delete is kept there, and now and then they put it back where it was, most likely while a
 * sync is about to delete its document in the service (row 8: the delete waits out
 * `safety.deleteHoldSeconds`, then the service and the folder are looked at again). A folder
 * put back while the service still has its document, unchanged since, undoes the deletion: the
 * ledger forgets it, and docsync must not delete the document (its second look at the folder).
 * Put back only then: a document changed in the service meanwhile is docsync's to bring back
 * (modify beats delete), and one already deleted there is made again from the folder.
 */
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Failpoint, FailpointSite } from '../../src/engine/failpoints.js';
import { pick } from '../../src/simulator/random.js';
import { presentEntityFolders } from '../chaos/away-edits.js';
import { type LocalDoc, localEdits } from '../chaos/local-edits.js';
import type { SeedRun } from './seed-run.js';
import type { SimLedger } from './sim-ledger.js';

interface Binned {
  readonly id: string;
  readonly folder: string;
  /** Where the bin keeps it, outside the root. */
  readonly at: string;
  /** The service's document as the person deleted the folder: its attachments and status. */
  readonly service: string;
  /** Takes the ledger's record of the deletion back. */
  readonly undo: () => void;
}

const bins = new WeakMap<SeedRun, Binned[]>();
const binOf = (run: SeedRun) => {
  const bin = bins.get(run) ?? [];
  bins.set(run, bin);
  return bin;
};

const parentOf = (rel: string) => rel.slice(0, rel.lastIndexOf('/'));
const abs = (run: SeedRun, rel: string) => path.join(run.view.root, ...rel.split('/'));

/** The service's document, as much of it as a person's put-back needs unchanged. */
async function serviceSide(run: SeedRun, id: string): Promise<string | null> {
  const doc = await run.view.remoteDoc(id);
  if (!doc) return null;
  const files = doc.attachments.map((a) => `${a.name}=${a.sha256}`).sort();
  return JSON.stringify([doc.status?.type ?? null, files]);
}

/** The chaos suite's folder delete (every mark in the ledger), with the folder kept in the bin. */
export async function deleteFolderKept(run: SeedRun, doc: LocalDoc): Promise<boolean> {
  const at = path.join(run.chaos.away.scratch, `bin ${run.ledger.serial()}`);
  mkdirSync(run.chaos.away.scratch, { recursive: true });
  cpSync(abs(run, doc.folder), at, { recursive: true, preserveTimestamps: true });
  const service = await serviceSide(run, doc.id);
  const undo = marksTakenBack(run.ledger, doc.id, () => localEdits.deleteFolder(run.chaos, doc));
  // A document the service has no more is not one the person can undo the deletion of.
  if (undo && service !== null)
    binOf(run).push({ id: doc.id, folder: doc.folder, at, service, undo });
  else rmSync(at, { recursive: true, force: true });
  return undo !== null;
}

/** Runs `deletion` of document `id`'s folder; returns what takes back the marks it left, or null. */
function marksTakenBack(ledger: SimLedger, id: string, deletion: () => boolean) {
  const sets = [
    ledger.userDeleted,
    ledger.deletedNames,
    ledger.removedFromStore,
    ledger.book.deleted,
  ];
  const before = sets.map((s) => new Set(s));
  const deletedAt = ledger.book.folderDeletedAt.get(id);
  if (!deletion()) return null;
  const added = sets.map((s, i) => [...s].filter((x) => !before[i]!.has(x)));
  return () => {
    sets.forEach((s, i) => {
      for (const x of added[i]!) s.delete(x);
    });
    if (deletedAt === undefined) ledger.book.folderDeletedAt.delete(id);
    else ledger.book.folderDeletedAt.set(id, deletedAt);
  };
}

/** Folders in the bin whose place is free and whose entity folder is in the store. */
function restorable(run: SeedRun): Binned[] {
  const entities = new Set(presentEntityFolders(run.chaos));
  return binOf(run).filter(
    (b) => entities.has(parentOf(b.folder)) && !existsSync(abs(run, b.folder)),
  );
}

/** A plan that deletes in the service a document whose folder is gone (row 8). */
export function deleteFromFolderPlanned(step: Failpoint, site: FailpointSite): boolean {
  return step === 'entity-planned' && site.rows?.includes(8) === true;
}

/**
 * The weight of a put-back now: none with nothing to put back; much likelier while a sync
 * waits in the middle of a delete (a planned row 8, or a step on a binned document).
 */
export function putBackWeight(run: SeedRun): number {
  const bin = restorable(run);
  if (bin.length === 0) return 0;
  const aimed = run.parked.some(
    (p) =>
      (p.step !== null && deleteFromFolderPlanned(p.step, p.site)) ||
      bin.some((b) => p.site.documentId === b.id || p.label.includes(b.id)),
  );
  return aimed ? 6 : 0.2;
}

/** A person puts a folder back from their bin; false when the service's document changed. */
export async function putBackFromBin(run: SeedRun): Promise<boolean> {
  const b = pick(run.random, restorable(run));
  const bin = binOf(run);
  bin.splice(bin.indexOf(b), 1);
  if ((await serviceSide(run, b.id)) !== b.service) {
    run.note(
      `person: put back ${b.folder} from the bin (its document changed in the service: left)`,
    );
    rmSync(b.at, { recursive: true, force: true });
    return false;
  }
  renameSync(b.at, abs(run, b.folder));
  if (run.world.running) run.world.life.watch.touch(abs(run, b.folder));
  b.undo();
  run.note(`person: put back ${b.folder} from the bin`);
  run.count('person: put back from the bin');
  await run.settle();
  return true;
}
