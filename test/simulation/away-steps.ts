/**
 * What a person does to the folder's shape and later undoes (docs/simulation.md, "What a seed
 * may do"): a `.document.json` broken (and mended), a document folder copied (and the copy
 * removed), a document folder moved into another entity's folder or an `Archive/` subfolder of
 * its own, an entity folder moved out of the root or renamed outside `Companies/`/`Trusts/` (and
 * each put back: absence is not deletion). The moves are the chaos suite's (away-edits.ts). A
 * person undoes one now and then, and everything before the world comes to rest, so the end is
 * judged on the shape the seed began with; meanwhile no other edit of a person touches a document
 * in one of these states (its folder is not where its document lives, or not its only one), and
 * what docsync does to it is judged as it goes (trash copies) and at the end.
 */
import { cpSync, existsSync, renameSync, rmSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { pick } from '../../src/simulator/random.js';
import { awayEdits, bringDocumentBack, presentEntityFolders } from '../chaos/away-edits.js';
import { type LocalDoc, localDocs, localEdits } from '../chaos/local-edits.js';
import type { SeedRun } from './seed-run.js';

export const AWAY_EDITS = [
  '.document.json broken',
  'folder copied',
  'folder moved',
  'entity folder moved',
] as const;
export type AwayEdit = (typeof AWAY_EDITS)[number];

/** Docs/sync-decision-table.md, row 50: a folder away is not a folder deleted. */
export const ABSENCE = 'absence is not deletion';

interface Broken {
  readonly id: string;
  readonly folder: string;
  /** The bytes and mtime the person puts back. */
  readonly text: Buffer;
  readonly mtime: Date;
  readonly broken: string;
}

interface Copy {
  readonly id: string;
  readonly folder: string;
}

/** What a person has broken or copied and will undo (the moves are in the chaos AwayBook). */
class Undoings {
  readonly broken: Broken[] = [];
  readonly copies: Copy[] = [];
}

const undoings = new WeakMap<SeedRun, Undoings>();
const undoingsOf = (run: SeedRun) => {
  const u = undoings.get(run) ?? new Undoings();
  undoings.set(run, u);
  return u;
};

/**
 * The copies a person made of document folders and has not removed: they hold nothing of the
 * person's own, so what a decision takes out of the folder is judged without them.
 */
export function copiedFolders(run: SeedRun): readonly string[] {
  return undoingsOf(run).copies.map((c) => c.folder);
}

/**
 * The document of each folder whose `.document.json` a person broke and has not mended (folder
 * → id): the file names no document until mended, yet the folder's contents are still its own.
 */
export function brokenFolders(run: SeedRun): ReadonlyMap<string, string> {
  return new Map(undoingsOf(run).broken.map((b) => [b.folder, b.id]));
}

const parentOf = (rel: string) => rel.slice(0, rel.lastIndexOf('/'));
const baseOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const abs = (run: SeedRun, rel: string) => path.join(run.view.root, ...rel.split('/'));

/** Ids of documents a person has moved, copied or broken, until undone. */
function outOfShape(run: SeedRun): Set<string> {
  const u = undoingsOf(run);
  return new Set([
    ...u.broken.map((b) => b.id),
    ...u.copies.map((c) => c.id),
    ...run.chaos.away.documents.map((d) => d.id),
  ]);
}

/**
 * The document folders a person's other edits may touch: in an entity folder that is in place,
 * and not moved, copied or broken.
 */
export function editableDocs(run: SeedRun): LocalDoc[] {
  const entities = new Set(presentEntityFolders(run.chaos));
  const skip = outOfShape(run);
  return localDocs(run.view).filter(
    (d) =>
      entities.has(parentOf(d.folder)) && !skip.has(d.id) && !run.service.vanishedFolder(d.folder),
  );
}

/** Whether something waits to be undone. */
export function somethingAway(run: SeedRun): boolean {
  const u = undoingsOf(run);
  const { away } = run.chaos;
  return u.broken.length + u.copies.length + away.documents.length + away.entities.length > 0;
}

/** The watcher hears of a change here, as of any edit of a person's. */
function touch(run: SeedRun, absolute: string): void {
  if (run.world.running) run.world.life.watch.touch(absolute);
}

/** One of AWAY_EDITS on `doc` (or its entity folder); false when it did not apply. */
export function awayEdit(run: SeedRun, kind: AwayEdit, doc: LocalDoc): boolean {
  // A document folder only where the agreed state has it: one a pull placed and a crash kept
  // from committing is settled from its `.document.json` by the next sync, and a broken,
  // copied or moved one is then pulled again beside it (left open: docs/simulation.md).
  if (kind !== 'entity folder moved' && !agreed(run, doc)) return false;
  switch (kind) {
    case '.document.json broken':
      return breakMeta(run, doc);
    case 'folder copied':
      return copyFolder(run, doc);
    case 'folder moved':
      return awayEdits.moveDocument(run.chaos, doc);
    case 'entity folder moved':
      return moveEntity(run, parentOf(doc.folder));
  }
}

function agreed(run: SeedRun, doc: LocalDoc): boolean {
  return run.world.running && run.world.life.state.base.get(doc.id)?.folder === doc.folder;
}

/**
 * A person breaks a `.document.json` (an editor cut it short): docsync must hold the document
 * (row 13). Half the time they also delete another document folder of the entity, which may be
 * the one whose `.document.json` cannot be read: the delete is held (row 18).
 */
function breakMeta(run: SeedRun, doc: LocalDoc): boolean {
  const file = abs(run, `${doc.folder}/.document.json`);
  const text = run.view.read(`${doc.folder}/.document.json`);
  const mtime = statSync(file).mtime;
  const broken = text.toString('utf8').slice(0, Math.max(1, Math.floor(text.length / 2)));
  run.view.write(`${doc.folder}/.document.json`, broken);
  undoingsOf(run).broken.push({ id: doc.id, folder: doc.folder, text, mtime, broken });
  const others = editableDocs(run).filter(
    (d) => parentOf(d.folder) === parentOf(doc.folder) && !run.chaos.keepers.has(d.id),
  );
  if (others.length > 0 && run.random() < 0.5) {
    const other = pick(run.random, others);
    localEdits.deleteFolder(run.chaos, other);
    run.note(`  and deleted ${other.folder}`);
  }
  return true;
}

/**
 * A person copies a document folder beside it: a second folder of one id, which docsync must
 * not take for a new document (row 17). The copy holds nothing of the person's own: its removal
 * loses nothing, so it goes without the ledger.
 */
function copyFolder(run: SeedRun, doc: LocalDoc): boolean {
  const copy = `${parentOf(doc.folder)}/${baseOf(doc.folder)} - Copy ${run.ledger.serial()}`;
  cpSync(abs(run, doc.folder), abs(run, copy), { recursive: true, preserveTimestamps: true });
  touch(run, abs(run, copy));
  undoingsOf(run).copies.push({ id: doc.id, folder: copy });
  run.note(`  ${doc.folder} copied to ${copy}`);
  return true;
}

/**
 * An entity folder moved out of the root (the chaos suite's, a link left half the time), or
 * renamed to the root's top, outside `Companies/` and `Trusts/`: the entity's folder is missing
 * (row 50), and nothing of it may be deleted.
 */
export function moveEntity(
  run: SeedRun,
  folder: string,
  how: 'out of the root' | 'renamed' = run.random() < 0.5 ? 'out of the root' : 'renamed',
): boolean {
  const { away } = run.chaos;
  if (away.entityAway(folder) || away.hostsForeignDocuments(folder)) return false;
  if (how === 'out of the root') {
    if (!awayEdits.moveEntityOut(run.chaos, folder)) return false;
  } else {
    const at = path.join(run.view.root, `${baseOf(folder)} (moved ${run.ledger.serial()})`);
    renameSync(abs(run, folder), at);
    away.entities.push({ folder, parked: at, link: false, due: 0 });
  }
  const parked = away.entities.at(-1)!;
  touch(run, abs(run, folder));
  run.note(`  ${folder} moved to ${parked.parked}${parked.link ? ', a link left' : ''}`);
  return true;
}

/**
 * Before the end, what is still away is left a while for the daemon to see (the watcher's wait,
 * a sync of each entity it heard of), and then everything is put back.
 */
export async function putBackAtTheEnd(run: SeedRun): Promise<void> {
  if (!somethingAway(run)) return;
  await run.advance(30_000);
  // Parked work goes on, but no webhook waits out its retries: the service may still fail, and
  // heals only as the world comes to rest.
  await run.drain(0);
  await undo(run, true);
}

/** A person undoes one thing they did (a random step), or everything (before the end). */
export async function undo(run: SeedRun, everything: boolean): Promise<boolean> {
  const u = undoingsOf(run);
  const { away } = run.chaos;
  // Entity folders first: a document moved within one can then go home.
  const todo: (readonly [string, () => void])[] = [
    ...away.entities.map((e) => [`put back ${e.folder}`, () => putEntityBack(run, e)] as const),
    ...away.documents
      .filter((d) => !away.entityAway(parentOf(d.home)) && existsSync(abs(run, d.at)))
      .map((d) => [`put back ${d.at}`, () => putDocumentBack(run, d)] as const),
    // A copy or a broken file in an entity folder that is away waits for it.
    ...u.copies
      .filter((c) => !away.entityAway(parentOf(c.folder)))
      .map((c) => [`removed the copy ${c.folder}`, () => removeCopy(run, c)] as const),
    ...u.broken
      .filter((b) => !away.entityAway(parentOf(b.folder)))
      .map((b) => [`mended ${b.folder}/.document.json`, () => mend(run, b)] as const),
  ];
  if (todo.length === 0) return false;
  const chosen = everything ? todo : [pick(run.random, todo)];
  for (const [what, act] of chosen) {
    act();
    run.note(`person: ${what}`);
    run.count('person: undone');
    await run.settle();
  }
  // What waited for its entity folder, back now, has its turn.
  if (everything && somethingAway(run)) await undo(run, true);
  return true;
}

function putEntityBack(run: SeedRun, e: (typeof run.chaos.away.entities)[number]): void {
  const at = abs(run, e.folder);
  const { entities } = run.chaos.away;
  entities.splice(entities.indexOf(e), 1);
  if (e.link) unlinkSync(at);
  if (existsSync(at)) {
    // Something made the folder again while it was away: the person's folder stays where they
    // put it, its documents out of the store, and the end judges what that lost.
    run.ledger.found(ABSENCE, `${e.folder} was made again while the entity folder was away`);
    return;
  }
  renameSync(e.parked, at);
  touch(run, at);
}

function putDocumentBack(run: SeedRun, d: (typeof run.chaos.away.documents)[number]): void {
  bringDocumentBack(run.chaos, d);
  const { documents } = run.chaos.away;
  documents.splice(documents.indexOf(d), 1);
}

function removeCopy(run: SeedRun, c: Copy): void {
  rmSync(abs(run, c.folder), { recursive: true, force: true });
  touch(run, abs(run, c.folder));
  const { copies } = undoingsOf(run);
  copies.splice(copies.indexOf(c), 1);
}

/** The `.document.json` as it was, with its time: what the person broke, not a new edit. */
function mend(run: SeedRun, b: Broken): void {
  const rel = `${b.folder}/.document.json`;
  const { broken } = undoingsOf(run);
  broken.splice(broken.indexOf(b), 1);
  if (!run.view.exists(rel) || run.view.read(rel).toString('utf8') !== b.broken) {
    run.note(`  ${rel} is not as the person left it: left alone`);
    return;
  }
  run.view.write(rel, b.text);
  utimesSync(abs(run, rel), b.mtime, b.mtime);
}
