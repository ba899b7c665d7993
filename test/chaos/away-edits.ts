/**
 * Absence is not deletion (issue 15): a user moves an entity folder out of the root (to a scratch
 * folder beside it), sometimes leaving a link to it in its place; moves a document folder into
 * another entity's folder or an `Archive/` subfolder of its own; or drags a document folder out
 * of the root, which is a deletion as far as the store is concerned. The first two come back a
 * few rounds later (away-book.ts); the third never does, and its service copy must then be in
 * the trash (round-invariants.ts).
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import path from 'node:path';
import { pick } from '../../src/simulator/random.js';
import type { ChaosWorld, LocalDoc } from './local-edits.js';

const parentOf = (rel: string) => rel.slice(0, rel.lastIndexOf('/'));
const baseOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const abs = (world: ChaosWorld, rel: string) => path.join(world.h.root, ...rel.split('/'));

/** Entity folders that are in the store now. */
export function presentEntityFolders(world: ChaosWorld): string[] {
  return world.entityFolders.filter((folder) => !world.away.entityAway(folder));
}

/** A name in the scratch folder beside the root, outside the store. */
function parkingPlace(world: ChaosWorld, what: string, rel: string): string {
  mkdirSync(world.away.scratch, { recursive: true });
  return path.join(world.away.scratch, `${what} ${world.ledger.serial()} ${baseOf(rel)}`);
}

export const awayEdits = {
  /**
   * An entity folder moved out of the root, maybe with a link left in its place. Not one that
   * holds another entity's document: that would take the document out of the store, a deletion.
   */
  moveEntityOut(world: ChaosWorld, preferred?: string): boolean {
    const { away, ledger } = world;
    const movable = presentEntityFolders(world).filter((f) => !away.hostsForeignDocuments(f));
    const folder =
      preferred && movable.includes(preferred)
        ? preferred
        : movable.length > 0
          ? pick(world.random, movable)
          : undefined;
    if (!folder) return false;
    const parked = parkingPlace(world, 'entity', folder);
    renameSync(abs(world, folder), parked);
    const link = world.random() < 0.5;
    if (link) symlinkSync(parked, abs(world, folder));
    away.entities.push({ folder, parked, link, due: away.dueAfter(world.random) });
    ledger.counts.entitiesAway++;
    if (link) ledger.counts.entityLinks++;
    ledger.note(`  entity folder ${folder} moved out of the root${link ? ', a link left' : ''}`);
    return true;
  },

  /** A document folder moved into another entity's folder, or into `Archive/` of its own. */
  moveDocument(world: ChaosWorld, doc: LocalDoc): boolean {
    const { away, h } = world;
    if (away.documentAway(doc.id)) return false;
    const entity = parentOf(doc.folder);
    const others = presentEntityFolders(world).filter((f) => f !== entity);
    const into =
      others.length > 0 && world.random() < 0.5 ? pick(world.random, others) : `${entity}/Archive`;
    const at = `${into}/${baseOf(doc.folder)}`;
    if (h.exists(at)) return false;
    h.rename(doc.folder, at);
    away.documents.push({ id: doc.id, home: doc.folder, at, due: away.dueAfter(world.random) });
    world.ledger.counts.documentsMoved++;
    world.ledger.note(`  document ${doc.id} moved from ${doc.folder} to ${at}`);
    return true;
  },

  /**
   * A document folder dragged out of the root: the store no longer holds it, so docsync deletes
   * the service's document, after saving its copy in the trash. The bytes the service holds are
   * not the user's to lose; those only the folder held left with the user.
   */
  async dragOutOfRoot(world: ChaosWorld, doc: LocalDoc): Promise<boolean> {
    const { h, ledger } = world;
    if (world.keepers.has(doc.id)) return false;
    const remote = await h.remoteDoc(doc.id);
    const inService = new Set(remote?.attachments.map((a) => a.sha256));
    for (const sha of doc.files.values()) if (!inService.has(sha)) ledger.deleted(sha);
    ledger.removedFromStore.add(doc.id);
    ledger.deletedNames.add(doc.name);
    renameSync(abs(world, doc.folder), parkingPlace(world, 'removed', doc.folder));
    world.away.forget(doc.id);
    ledger.counts.documentsDraggedOut++;
    ledger.note(`  document ${doc.id} dragged out of the root from ${doc.folder}`);
    return true;
  },
};

/**
 * Puts back what is due this round, or everything (before the final convergence): entity
 * folders first, so a document moved within one can go home.
 */
export function bringBack(world: ChaosWorld, everything: boolean): void {
  const { away, ledger } = world;
  const due = (d: { due: number }) => everything || d.due <= away.round;
  for (const entity of away.entities.filter(due)) {
    if (entity.link) unlinkSync(abs(world, entity.folder));
    if (existsSync(abs(world, entity.folder)))
      throw new Error(`${entity.folder} was made again while the entity folder was away`);
    renameSync(entity.parked, abs(world, entity.folder));
    away.entities.splice(away.entities.indexOf(entity), 1);
    ledger.counts.returns++;
    ledger.note(`  entity folder ${entity.folder} put back`);
  }
  for (const doc of away.documents.filter(due)) {
    const there = existsSync(abs(world, doc.at));
    if (everything && !there)
      throw new Error(`document ${doc.id}, moved by a user to ${doc.at}, is gone from there`);
    if (away.entityAway(parentOf(doc.home)) || !there) {
      // Its way home, or the entity folder it sits in, is still parked outside the root.
      doc.due++;
      continue;
    }
    bringDocumentBack(world, doc);
    away.documents.splice(away.documents.indexOf(doc), 1);
    ledger.counts.returns++;
  }
}

/** A document folder a user moved goes home (beside a folder docsync made there meanwhile). */
export function bringDocumentBack(world: ChaosWorld, doc: { home: string; at: string }): void {
  const { h } = world;
  // A folder in its old place means docsync made one while it was away; coming back beside it
  // leaves two folders for one document, which the invariants then report.
  const home = h.exists(doc.home)
    ? `${parentOf(doc.home)}/Back ${world.ledger.serial()} ${baseOf(doc.home)}`
    : doc.home;
  h.rename(doc.at, home);
  world.ledger.note(`  document folder ${doc.at} put back as ${home}`);
  const left = parentOf(doc.at);
  if (baseOf(left) === 'Archive' && readdirSync(abs(world, left)).length === 0)
    rmdirSync(abs(world, left));
}
