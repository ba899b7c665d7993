/**
 * What a person does to the very thing a parked sync is about to change (docs/simulation.md,
 * "What a seed may do"): the world moves during a sync, and the random edits seldom land on
 * the one file a write is aimed at. While a sync waits before a write into the folder (the
 * `before-local-write` failpoint), a person edits what it will trash, rename or rewrite: a
 * file gets new bytes, a folder a new file, a `.document.json` a typed status. The write must
 * see that the folder is no longer what its plan scanned, leave the person's edit, and let the
 * next plan decide. And a person renames a folder they made while docsync makes its document,
 * and a service user changes a document while docsync deletes it, its copy already taken.
 */
import path from 'node:path';
import type { Failpoint, FailpointSite } from '../../src/engine/failpoints.js';
import { pick } from '../../src/simulator/random.js';
import { presentEntityFolders } from '../chaos/away-edits.js';
import { localEdits } from '../chaos/local-edits.js';
import { remoteEdits } from '../chaos/remote-edits.js';
import { editableDocs } from './away-steps.js';
import type { Parked } from './park-board.js';
import type { SeedRun } from './seed-run.js';

/** A write over something that is there: `trash x.pdf`, `rename x.pdf`, `trash the folder`. */
const OVER = /^(trash|delete|rename) (.+)$/;

/** A failpoint before a write over something of a document's that is there. */
export function isWriteOver(step: Failpoint, site: FailpointSite): boolean {
  return (
    step === 'before-local-write' &&
    site.documentId != null &&
    (site.what === '.document.json' || OVER.test(site.what ?? ''))
  );
}

/** The parked writes a person could edit under: over a file or folder of a document they may edit. */
export function writesToEditUnder(run: SeedRun): Parked[] {
  const ids = new Set(editableDocs(run).map((d) => d.id));
  return run.parked.filter(
    ({ step, site }) => step !== null && isWriteOver(step, site) && ids.has(site.documentId!),
  );
}

/** A person edits what one of the parked writes is about to change; false if it was not there. */
export async function editUnderWrite(run: SeedRun): Promise<boolean> {
  const item = pick(run.random, writesToEditUnder(run));
  const doc = editableDocs(run).find((d) => d.id === item.site.documentId)!;
  const target = item.site.what === '.document.json' ? null : OVER.exec(item.site.what!)![2]!;
  let done = true;
  let kind: string;
  if (target === null) {
    kind = 'status typed';
    localEdits.editStatus(run.chaos, doc);
  } else if (target === 'the folder') {
    kind = 'file added to the folder';
    localEdits.newFile(run.chaos, doc);
  } else {
    kind = 'file replaced';
    done = localEdits.replaceFile(run.chaos, doc, target);
  }
  run.note(`person, under a write (${item.label}): ${kind}${done ? '' : ' (not there)'}`);
  if (done) run.count(`under a write: ${kind}`);
  await run.settle();
  return done;
}

/**
 * A failpoint in a create of a document from a new folder: its commit, or the write that names
 * the folder (`.document.json` in a folder no document has yet).
 */
export function isCreateStep(step: Failpoint, site: FailpointSite): boolean {
  return (
    (step === 'before-commit' && site.what === 'create-document') ||
    (step === 'before-local-write' && site.documentId == null && site.what === '.document.json')
  );
}

/** A create of a document from a new folder is under way: its answer held, or a step of it parked. */
function createInFlight(item: Parked): boolean {
  return (
    item.label.startsWith('create-document') ||
    (item.step !== null && isCreateStep(item.step, item.site))
  );
}

/** Folders a person made in an entity folder that docsync has not named yet (no `.document.json`). */
function unnamedFolders(run: SeedRun): string[] {
  const entities = new Set(presentEntityFolders(run.chaos));
  const tree = run.view.tree();
  const folders = new Set<string>();
  for (const rel of tree.keys()) {
    const folder = path.posix.dirname(rel);
    if (entities.has(path.posix.dirname(folder)) && !tree.has(`${folder}/.document.json`))
      folders.add(folder);
  }
  return [...folders].sort();
}

/** A person's new folder is not a document yet: its seed goes on a little to see its create through. */
export const newFolderUnnamed = (run: SeedRun): boolean => unnamedFolders(run).length > 0;

/**
 * The weight of a new folder's rename now: likeliest while a step of its create is parked (its
 * commit, or the write naming the folder: a crash then lands between the two), likely while its
 * answer is held.
 */
export function renameNewFolderWeight(run: SeedRun): number {
  if (unnamedFolders(run).length === 0) return 0;
  if (run.parked.some((p) => p.step !== null && isCreateStep(p.step, p.site))) return 10;
  return run.parked.some(createInFlight) ? 3 : 0.2;
}

/**
 * A person renames a folder they made, before or while docsync makes its document: the date in
 * its name set or corrected, the document's name kept (the ledger knows it by that name). Half
 * the times a create is under way, the server goes down right after: the create's answer, the
 * folder's naming and the commit must still come to one document.
 */
export async function renameNewFolder(run: SeedRun): Promise<void> {
  const folder = pick(run.random, unnamedFolders(run));
  const base = path.posix.basename(folder);
  const name = base.replace(/^\d{4}-\d{2}-\d{2} /, '');
  const to = `${path.posix.dirname(folder)}/2024-11-${10 + (run.ledger.serial() % 18)} ${name}`;
  const inFlight = run.parked.some(createInFlight);
  if (to === folder || run.view.exists(to)) return;
  run.view.rename(folder, to);
  run.note(
    `person: new folder ${folder} renamed to ${to}${inFlight ? ', its create under way' : ''}`,
  );
  run.count(`person: new folder renamed${inFlight ? ' during its create' : ''}`);
  await run.settle();
  if (inFlight && run.world.running && run.random() < 0.5) {
    run.count('crash (after a rename during a create)');
    await run.crash();
  }
}

/**
 * A folder a person deleted still has its document agreed: its delete in the service is to come
 * (or a rail holds it for a person).
 */
export function deleteToCome(run: SeedRun): boolean {
  if (!run.world.running) return false;
  const { base } = run.world.life.state;
  return [...run.ledger.removedFromStore].some((id) => base.get(id) !== null);
}

/** Syncs parked in a document's delete in the service, its copy in the trash (`service-copy-saved`). */
function deletesUnderWay(run: SeedRun): Parked[] {
  return run.parked.filter((p) => p.step === 'service-copy-saved' && p.site.documentId != null);
}

/** The weight of a service user's edit of a document whose delete is under way: none outside it. */
export const editUnderDeleteWeight = (run: SeedRun): number =>
  deletesUnderWay(run).length > 0 ? 4 : 0;

const UNDER_DELETE = ['attachment added', 'attachment replaced', 'new status'] as const;

/**
 * A service user changes a document while a sync waits in its delete, its copy taken: a file
 * added or replaced, a status set. The delete must look at the service again and not be sent
 * (modify beats delete); sent, it destroys what the copy does not hold. False if the document
 * is gone from the service or the edit did not apply.
 */
export async function editUnderDelete(run: SeedRun): Promise<boolean> {
  const item = pick(run.random, deletesUnderWay(run));
  const dump = await run.view.remote();
  const doc = dump.documents.find((d) => d.id === item.site.documentId);
  const kind = pick(run.random, UNDER_DELETE);
  const before = run.webhooks.waiting.length;
  let done = doc !== undefined;
  if (doc && kind === 'attachment added') remoteEdits.addAttachment(run.chaos, doc);
  else if (doc && kind === 'attachment replaced')
    done = remoteEdits.replaceAttachment(run.chaos, doc);
  else if (doc)
    done = remoteEdits.newStatus(
      run.chaos,
      doc,
      dump.statusTypes.map((t) => t.id),
    );
  run.note(`service user, under a delete (${item.label}): ${kind}${done ? '' : ' (not there)'}`);
  if (!done) return false;
  run.count(`under a delete: ${kind}`);
  for (const hook of run.webhooks.waiting.slice(before))
    if (run.random() < 0.6) {
      run.count('webhook at once');
      await run.deliver(hook, 'at once');
    }
  await run.settle();
  return true;
}
