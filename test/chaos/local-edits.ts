/**
 * What a user of the folder does, at random: new document folders with files, new files,
 * replaced contents, deleted files, status edits in any letter case, deleted folders, renamed
 * document folders, and the moves of away-edits.ts (entity folders out of the root and back,
 * document folders into another entity or `Archive/` and back, or dragged out of the root).
 * Every byte written and every byte removed goes into the ledger.
 */
import { pick, type Random } from '../../src/simulator/random.js';
import { folderFiles, type SyncHarness, sha256 } from '../helpers/sync-harness.js';
import type { AwayBook } from './away-book.js';
import { awayEdits, presentEntityFolders } from './away-edits.js';
import type { ChaosLedger } from './chaos-ledger.js';

export interface ChaosWorld {
  readonly h: SyncHarness;
  readonly random: Random;
  readonly ledger: ChaosLedger;
  readonly seed: number;
  /** One document per entity that no one deletes: an empty listing trips the empty-listing rail. */
  readonly keepers: ReadonlySet<string>;
  readonly statusNames: readonly string[];
  /** Every entity's folder, where it belongs (it may be away: `away`). */
  readonly entityFolders: readonly string[];
  readonly away: AwayBook;
}

export interface LocalDoc {
  readonly folder: string;
  readonly id: string;
  readonly name: string;
  readonly files: Map<string, string>;
  /** File names the service marks as system attachments (read-only). */
  readonly system: ReadonlySet<string>;
}

/** Document folders with a readable `.document.json`, as the folder is now (others are skipped). */
export function localDocs(h: SyncHarness): LocalDoc[] {
  const tree = h.tree();
  const docs: LocalDoc[] = [];
  for (const rel of tree.keys()) {
    if (!rel.endsWith('/.document.json')) continue;
    const folder = rel.slice(0, -'/.document.json'.length);
    let meta: ReturnType<SyncHarness['meta']>;
    try {
      meta = h.meta(folder);
    } catch {
      // A `.document.json` a person broke names no document to edit.
      continue;
    }
    const system = new Set(meta.attachments.filter((a) => a.kind === 'system').map((a) => a.file));
    docs.push({ folder, id: meta.id, name: meta.name, files: folderFiles(tree, folder), system });
  }
  return docs.sort((a, b) => a.folder.localeCompare(b.folder));
}

/** Unique bytes of varying length, so no two writes are alike and sizes differ. */
export function content(world: ChaosWorld, what: string): string {
  const n = world.ledger.serial();
  return `${what} #${n} seed ${world.seed}\n${'x'.repeat(Math.floor(world.random() * 40))}`;
}

function writeFile(world: ChaosWorld, rel: string, what: string): void {
  const text = content(world, what);
  world.h.write(rel, text);
  world.ledger.wrote(sha256(text), `local ${rel}`);
}

const CASES = [
  (s: string) => s,
  (s: string) => s.toLowerCase(),
  (s: string) => s.replace(/\w+/g, (w) => w[0]! + w.slice(1).toLowerCase()),
];

export const localEdits = {
  newFolder(world: ChaosWorld): void {
    const n = world.ledger.serial();
    const name = `Chaos ${world.seed}-${n}`;
    const dated = world.random() < 0.7;
    const folderName = dated ? `2024-0${1 + (n % 9)}-1${n % 10} ${name}` : name;
    const folder = `${pick(world.random, presentEntityFolders(world))}/${folderName}`;
    const files = 1 + Math.floor(world.random() * 3);
    for (let i = 0; i < files; i++) writeFile(world, `${folder}/file ${i}.txt`, `new ${name}`);
    world.ledger.madeNames.add(name);
    world.ledger.note(`  new folder ${folder}`);
  },

  newFile(world: ChaosWorld, doc: LocalDoc, name?: string): void {
    writeFile(world, `${doc.folder}/${name ?? `added ${world.ledger.serial()}.txt`}`, 'added');
  },

  /** `name`, or one of the document's files at random. */
  replaceFile(world: ChaosWorld, doc: LocalDoc, name?: string): boolean {
    const names = [...doc.files.keys()];
    if (names.length === 0 || (name !== undefined && !doc.files.has(name))) return false;
    name ??= pick(world.random, names);
    // A system attachment's edit is never pushed: the original comes back from the service, so
    // its old bytes are not the user's to lose. A user attachment's old bytes are overwritten,
    // and so are a system form's when they are the person's own earlier edit, not yet set aside.
    const old = doc.files.get(name)!;
    if (!doc.system.has(name) || world.ledger.written.get(old)?.startsWith('local '))
      world.ledger.deleted(old);
    writeFile(world, `${doc.folder}/${name}`, 'replaced');
    return true;
  },

  deleteFile(world: ChaosWorld, doc: LocalDoc): boolean {
    const names = [...doc.files.keys()];
    if (names.length === 0) return false;
    const name = pick(world.random, names);
    world.ledger.deleted(doc.files.get(name)!);
    world.h.remove(`${doc.folder}/${name}`);
    return true;
  },

  editStatus(world: ChaosWorld, doc: LocalDoc): void {
    // Another type's name: retyping the current one in other letters is no edit, so nothing is
    // pushed and nothing rewrites the folder; it keeps the user's letters (seed 21 did that).
    const current = (world.h.meta(doc.folder).status ?? '').toUpperCase();
    const others = world.statusNames.filter((name) => name.toUpperCase() !== current);
    const status = pick(world.random, CASES)(pick(world.random, others));
    world.h.editMeta(doc.folder, (meta) => ({ ...meta, status }));
  },

  /** Also of a folder moved away: deleted there, it has left the store for good. */
  deleteFolder(world: ChaosWorld, doc: LocalDoc): boolean {
    if (world.keepers.has(doc.id)) return false;
    for (const sha of doc.files.values()) world.ledger.deleted(sha);
    world.ledger.deletedNames.add(doc.name);
    world.ledger.removedFromStore.add(doc.id);
    world.away.forget(doc.id);
    world.h.remove(doc.folder);
    world.ledger.note(`  document ${doc.id} deleted in the folder (${doc.folder})`);
    return true;
  },

  /** Not of a folder moved away: the way back is recorded by its path. */
  renameFolder(world: ChaosWorld, doc: LocalDoc): boolean {
    if (world.away.documentAway(doc.id)) return false;
    const entity = doc.folder.slice(0, doc.folder.lastIndexOf('/'));
    world.h.rename(doc.folder, `${entity}/Renamed ${world.ledger.serial()} ${doc.name}`);
    return true;
  },
};

/**
 * One random local edit; false when the pick did not apply (nothing to delete, say). The edits
 * inside a document also reach folders moved away: a user may well work on an archived one.
 */
export async function randomLocalEdit(world: ChaosWorld, target?: LocalDoc): Promise<boolean> {
  const docs = localDocs(world.h);
  const roll = world.random();
  if (roll < 0.13 && !target) {
    localEdits.newFolder(world);
    return true;
  }
  if (roll >= 0.95) {
    const entity = target?.folder.slice(0, target.folder.lastIndexOf('/'));
    return awayEdits.moveEntityOut(world, entity);
  }
  const doc = target ?? (docs.length > 0 ? pick(world.random, docs) : undefined);
  if (!doc) return false;
  if (roll < 0.3) localEdits.newFile(world, doc);
  else if (roll < 0.44) return localEdits.replaceFile(world, doc);
  else if (roll < 0.55) return localEdits.deleteFile(world, doc);
  else if (roll < 0.7) localEdits.editStatus(world, doc);
  else if (roll < 0.78) return localEdits.deleteFolder(world, doc);
  else if (roll < 0.84) return localEdits.renameFolder(world, doc);
  else if (roll < 0.91) return awayEdits.moveDocument(world, doc);
  else return awayEdits.dragOutOfRoot(world, doc);
  return true;
}
