/**
 * The service's own world changing under a sync (docs/simulation.md, "What a seed may do"): a
 * company or trust renamed, deleted, or entered again under a new id; a status type taken out of
 * the catalogue; a document renamed or re-dated; a `deleteDocument` webhook the service sent in
 * error; a document missing from one listing; and, for a share of seeds, the service's clock
 * skewed. Each is recorded where the ledger needs it, and what docsync promises about the ones
 * that take something away is checked once the world is quiet (`serviceWorldFindings`): a
 * missing thing is not a deleted thing (syncing.md, "Absence is not deletion").
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { OwnerRef } from '../../src/domain/types.js';
import type { StateDump } from '../../src/simulator/index.js';
import { pick } from '../../src/simulator/random.js';
import type { StateStore } from '../../src/state/state-store.js';
import { type DumpDocument, folderFiles } from '../helpers/sync-harness.js';
import type { SeedRun } from './seed-run.js';
import { fileKey } from './sim-book.js';
import type { Observed } from './sim-invariants.js';
import type { Finding, SimLedger } from './sim-ledger.js';
import { treeOf } from './sim-view.js';
import type { QueuedWebhook } from './sim-webhooks.js';
import { ownerKeyOf } from './sim-world.js';

export const ENTITY_FOLDER_KEPT = 'an entity gone from the service keeps its folder';
export const NOT_DELETED_ON_A_WORD = 'a document the service still has is not deleted';
export const NOT_A_REFUSAL = 'a 429 is not a refusal';

const MISSING_FROM_A_LISTING = 'missing from one listing';

/** An entity the service no longer has under its id, and its folder as it was then. */
interface Vanished {
  readonly owner: OwnerRef;
  readonly how: 'deleted' | 'renumbered';
  /** Its folder, relative to the root; null when it had none yet. */
  readonly folder: string | null;
  /** Its document folders then: document id → file name → sha256. */
  readonly documents: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Its other files then (a new folder's, not yet a document): relative path → sha256. */
  readonly loose: ReadonlyMap<string, string>;
  /** Names of those documents in the service then. */
  readonly names: ReadonlyMap<string, string>;
  /** Bytes users had deleted or replaced before: a sync under way may still take them away. */
  readonly deletedBefore: ReadonlySet<string>;
}

/** A document the service still had when something said otherwise. */
interface Watched {
  readonly id: string;
  readonly why: string;
  /** Every name it had while watched (a service user may rename it). */
  readonly names: Set<string>;
}

/** What this seed did to the service's world, for the checks at the end. */
export class ServiceBook {
  readonly vanished: Vanished[] = [];
  readonly watched: Watched[] = [];
  /** Entities the service entered anew (a renumbered one's new id), as `kind:id`. */
  readonly entered = new Set<string>();
  /** A write docsync sent was answered 429 since the last look at its pushes. */
  rateLimitedWrite = false;

  /** Whether `folder` (relative) is the folder of an entity the service no longer has. */
  vanishedFolder(folder: string): boolean {
    return this.vanished.some(
      (v) => v.folder !== null && (folder === v.folder || folder.startsWith(`${v.folder}/`)),
    );
  }

  watch(doc: DumpDocument, why: string): void {
    this.watched.push({ id: doc.id, why, names: new Set([doc.name]) });
  }

  /**
   * Documents left out of a listing: only a whole listing finds one again once a cursor moved
   * past it, so the full rounds may (convergence.ts).
   */
  missedByAListing(): Set<string> {
    return new Set(this.watched.filter((w) => w.why === MISSING_FROM_A_LISTING).map((w) => w.id));
  }

  /** Entities the service no longer has under their ids, as `kind:id` (convergence.ts). */
  vanishedOwners(): Set<string> {
    return new Set(this.vanished.map((v) => ownerKeyOf(v.owner)));
  }

  renamed(id: string, name: string): void {
    for (const w of this.watched) if (w.id === id) w.names.add(name);
  }
}

export const SERVICE_WORLD_EDITS = [
  'entity renamed',
  'entity deleted',
  'entity renumbered',
  'status type removed',
  'document renamed',
  'document re-dated',
  'wrong deleteDocument webhook',
  'document missing from a listing',
] as const;
export type ServiceWorldEdit = (typeof SERVICE_WORLD_EDITS)[number];

/** The type new documents get (simulator/document-ops.ts): never removed, or nothing is made. */
const DEFAULT_STATUS = 'RECEIVED';
/** Status types the catalogue keeps at the least, besides the default. */
const TYPES_KEPT = 4;

/**
 * One change to the service's world, and the webhooks it makes: a document's `statusChange`
 * when it is renamed or re-dated, the wrong `deleteDocument`, a renumbered entity's documents'
 * `newDocument`; the service sends none for the rest.
 */
export async function serviceWorldEdit(
  run: SeedRun,
  kind: ServiceWorldEdit,
): Promise<{ done: boolean; what: string; hooks: QueuedWebhook[] }> {
  const dump = await run.view.remote();
  const owners: { owner: OwnerRef; name: string }[] = [
    ...dump.companies.map((c) => ({
      owner: { kind: 'company' as const, id: String(c.id) },
      name: c.name,
    })),
    ...dump.trusts.map((t) => ({
      owner: { kind: 'trust' as const, id: String(t.id) },
      name: t.name,
    })),
  ];
  const none = (what: string) => ({ done: false, what, hooks: [] });
  const doc = dump.documents.length > 0 ? pick(run.random, dump.documents) : null;
  switch (kind) {
    case 'entity renamed': {
      const { owner, name } = pick(run.random, owners);
      const to = `Renamed ${run.ledger.serial()} ${name}`;
      run.world.sim.admin.renameEntity(owner, to);
      return { done: true, what: `${ownerKeyOf(owner)} to "${to}"`, hooks: [] };
    }
    case 'entity deleted':
    case 'entity renumbered': {
      // One entity gone a seed, and never the last two: an empty catalogue is a fault, not news.
      if (run.service.vanished.length > 0 || owners.length < 3)
        return none('(one is gone already)');
      const { owner } = pick(run.random, owners);
      const how = kind === 'entity deleted' ? 'deleted' : 'renumbered';
      return { done: true, ...(await entityGone(run, dump, owner, how)) };
    }
    case 'status type removed': {
      const types = dump.statusTypes.filter((t) => t.name !== DEFAULT_STATUS);
      if (types.length <= TYPES_KEPT) return none('(few left)');
      const type = pick(run.random, types);
      run.world.sim.admin.removeStatusType(type.id);
      return { done: true, what: `${type.id} (${type.name})`, hooks: [] };
    }
    case 'document renamed': {
      if (!doc) return none('(no document)');
      const to = `Renamed ${run.ledger.serial()} ${doc.name}`;
      run.world.sim.admin.editDocument(doc.id, { name: to });
      // A service user's change: the book holds the service and the folder to it.
      run.ledger.book.detailsChanged(doc.id, { name: to });
      // A document a user made is looked for by its name (sim-invariants.ts): its name now.
      if (run.ledger.madeNames.delete(doc.name)) run.ledger.madeNames.add(to);
      run.service.renamed(doc.id, to);
      const hook = run.webhooks.queue(doc.owner, doc.id, 'statusChange');
      return { done: true, what: `${doc.id} to "${to}"`, hooks: [hook] };
    }
    case 'document re-dated': {
      if (!doc) return none('(no document)');
      const n = run.ledger.serial();
      const date = `20${20 + (n % 9)}-0${1 + (n % 9)}-1${n % 10}`;
      if (date === doc.documentDate) return none('(the same date)');
      run.world.sim.admin.editDocument(doc.id, { documentDate: date });
      run.ledger.book.detailsChanged(doc.id, { documentDate: date });
      const hook = run.webhooks.queue(doc.owner, doc.id, 'statusChange');
      return { done: true, what: `${doc.id} to ${date}`, hooks: [hook] };
    }
    case 'wrong deleteDocument webhook': {
      if (!doc) return none('(no document)');
      run.service.watch(doc, 'named by a wrong deleteDocument');
      const hook = run.webhooks.queue(doc.owner, doc.id, 'deleteDocument', true);
      return { done: true, what: doc.id, hooks: [hook] };
    }
    case 'document missing from a listing': {
      if (!doc) return none('(no document)');
      run.service.watch(doc, MISSING_FROM_A_LISTING);
      run.world.sim.admin.skipInNextListing(doc.id);
      // Half the time the look docsync takes at it then fails too: a failed read is no 404.
      const unread = run.random() < 0.5;
      if (unread) run.world.sim.admin.failNextDetails(doc.id);
      return { done: true, what: `${doc.id}${unread ? ', its next details 503' : ''}`, hooks: [] };
    }
  }
}

/**
 * The entity deleted in the service, or entered again under a new id (its documents made again,
 * their webhooks queued), after its folder is noted as it is now (`vanish`).
 */
export async function entityGone(
  run: SeedRun,
  dump: StateDump,
  owner: OwnerRef,
  how: Vanished['how'],
): Promise<{ what: string; hooks: QueuedWebhook[] }> {
  vanish(run, dump, owner, how);
  const admin = run.world.sim.admin;
  const before = dump.documents.filter((d) => ownerKeyOf(d.owner) === ownerKeyOf(owner));
  // A service user took its documents away under their ids: deleted, as far as the book knows.
  for (const d of before) run.ledger.book.serviceDeleted.add(d.id);
  if (how === 'deleted') {
    admin.deleteEntity(owner);
    return { what: ownerKeyOf(owner), hooks: [] };
  }
  const next = admin.renumberEntity(owner);
  run.service.entered.add(ownerKeyOf(next.owner));
  await bookRenumbered(run, before, next.documentIds);
  // Its documents were made again in the same order: a document no one deletes stays one.
  const keepers = run.chaos.keepers as Set<string>;
  before.forEach((d, i) => {
    if (keepers.has(d.id)) keepers.add(next.documentIds[i]!);
  });
  const hooks = next.documentIds.map((id) => run.webhooks.queue(next.owner, id, 'newDocument'));
  return { what: `${ownerKeyOf(owner)} is now ${ownerKeyOf(next.owner)}`, hooks };
}

/**
 * The documents made again under new ids are a service user's: their contents (their old
 * documents' ones, there now) are held to the new documents, and so are their names, dates,
 * statuses and attachment ids (a service user may delete one of those later).
 */
async function bookRenumbered(run: SeedRun, before: readonly DumpDocument[], ids: string[]) {
  const book = run.ledger.book;
  const now = new Map((await run.world.sim.admin.dump()).documents.map((d) => [d.id, d]));
  before.forEach((d, i) => {
    for (const a of d.attachments) book.deleted.add(fileKey(d.id, a.sha256));
    const doc = now.get(ids[i]!);
    if (!doc) return;
    book.document(doc, 'service user');
    for (const a of doc.attachments)
      book.file(
        { sha: a.sha256, documentId: doc.id, name: a.name, kind: a.kind },
        'service user',
        a.id,
      );
    run.ledger.statusEdit(doc.id, doc.status?.type ?? null, 'remote');
  });
}

/**
 * The entity's folder as it is now, and what the ledger must know: a service user took away
 * everything of it in the service (deleted: its bytes there, its documents' names), and what
 * only its folder holds stays there, unsynced (checked at the end), not on both sides.
 */
function vanish(run: SeedRun, dump: StateDump, owner: OwnerRef, how: Vanished['how']): void {
  const { folder, tree } = entityFolderNow(run, owner);
  const deletedBefore = new Set(run.ledger.userDeleted);
  const documents = new Map<string, ReadonlyMap<string, string>>();
  const names = new Map<string, string>();
  const inService = dump.documents.filter((d) => ownerKeyOf(d.owner) === ownerKeyOf(owner));
  const serviceShas = new Set(inService.flatMap((d) => d.attachments.map((a) => a.sha256)));
  for (const d of inService) names.set(d.id, d.name);
  const loose = new Map<string, string>();
  if (folder !== null) {
    const docFolders = new Set<string>();
    for (const [rel, id] of documentIds(run, folder, tree)) {
      const docFolder = rel.slice(0, -'/.document.json'.length);
      documents.set(id, folderFiles(tree, docFolder));
      docFolders.add(docFolder);
    }
    for (const [rel, sha] of tree) {
      if (!rel.startsWith(`${folder}/`)) continue;
      // Only in the folder from now on: not the service's to hold (unless its copy there is).
      if (how === 'deleted' || !serviceShas.has(sha)) run.ledger.deleted(sha);
      const docFolder = rel.slice(0, rel.lastIndexOf('/'));
      if (!docFolders.has(docFolder)) loose.set(rel, sha);
      // A folder a person made there that the service never had stays theirs, unsynced.
      const base = rel.slice(folder.length + 1).split('/')[0]!;
      for (const made of run.ledger.madeNames)
        if (base.endsWith(made) && ![...names.values()].includes(made))
          run.ledger.deletedNames.add(made);
    }
  }
  if (how === 'deleted') {
    for (const sha of serviceShas) run.ledger.deleted(sha);
    for (const name of names.values()) run.ledger.deletedNames.add(name);
  }
  run.service.vanished.push({ owner, how, folder, documents, loose, names, deletedBefore });
  run.ledger.note(
    `  ${ownerKeyOf(owner)} ${how} in the service (its folder ${folder ?? 'not made yet'})`,
  );
}

/**
 * The entity's folder, relative to the root, and the files under it (relative paths → sha256).
 * A folder a person moved away (row 50) is taken where it belongs, its files as they are where
 * it is parked: the person puts it back before the end, and what it holds stays theirs.
 */
function entityFolderNow(
  run: SeedRun,
  owner: OwnerRef,
): { folder: string | null; tree: ReadonlyMap<string, string> } {
  const home = entityFolderOf(run.world.root, owner);
  if (home !== null) return { folder: home, tree: run.view.tree() };
  for (const e of run.chaos.away.entities) {
    if (!namesOwner(e.parked, owner)) continue;
    const tree = new Map<string, string>();
    for (const [rel, sha] of treeOf(e.parked)) tree.set(`${e.folder}/${rel}`, sha);
    return { folder: e.folder, tree };
  }
  return { folder: null, tree: new Map() };
}

/** The `.document.json` files of the entity folder's documents (relative path → id). */
function documentIds(
  run: SeedRun,
  folder: string,
  tree: ReadonlyMap<string, string>,
): Map<string, string> {
  const parked = run.chaos.away.entities.find((e) => e.folder === folder)?.parked;
  const ids = new Map<string, string>();
  for (const rel of tree.keys()) {
    if (!rel.startsWith(`${folder}/`) || !rel.endsWith('/.document.json')) continue;
    const file = parked
      ? path.join(parked, ...rel.slice(folder.length + 1).split('/'))
      : path.join(run.world.root, ...rel.split('/'));
    try {
      const id = (JSON.parse(readFileSync(file, 'utf8')) as { id?: unknown }).id;
      if (id !== undefined && id !== null) ids.set(rel, String(id));
    } catch {
      // A `.document.json` a person broke names no document.
    }
  }
  return ids;
}

function namesOwner(dir: string, owner: OwnerRef): boolean {
  try {
    const json = JSON.parse(readFileSync(path.join(dir, '.entity.json'), 'utf8'));
    return String((json as { id?: unknown }).id) === owner.id;
  } catch {
    // No `.entity.json` (yet): not this entity's folder.
    return false;
  }
}

/** The folder whose `.entity.json` names `owner`, relative to the root; null when none does. */
function entityFolderOf(root: string, owner: OwnerRef): string | null {
  const top = owner.kind === 'company' ? 'Companies' : 'Trusts';
  const dir = path.join(root, top);
  if (!existsSync(dir)) return null;
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isDirectory() && namesOwner(path.join(dir, entry.name), owner))
      return `${top}/${entry.name}`;
  return null;
}

/** docsync's writes (create, status, upload, deletes), by the route each goes to (its end). */
const WRITES = [
  ['create-document', 'POST', '/documents'],
  ['assign-status', 'POST', '/documents/{documentId}/statuses'],
  ['upload-attachment', 'POST', '/documents/{documentId}/attachments'],
  ['delete-document', 'DELETE', '/documents/{documentId}'],
  ['delete-attachment', 'DELETE', '/attachments/{attachmentId}'],
] as const;

/**
 * The next write of each kind docsync sends, whenever it comes (in the world's rest too), is
 * carried out and its answer lost: a 5xx or a reset. docsync must settle each by reading the
 * service, never send it twice (resolve-in-doubt.ts). Every kind at once: creates are rare, and
 * an armed loss waits for its kind.
 */
export function loseNextAnswers(run: SeedRun): void {
  for (const [, method, route] of WRITES) run.world.sim.admin.loseNextAnswer(method, route);
  run.note('service: the answer of the next write of each kind will be lost');
  run.count('fault: the next write of each kind answered lost');
}

/** For a share of seeds, the service's clock minutes ahead of the daemon's or behind it. */
export function skewServiceClock(run: SeedRun): void {
  if (run.random() >= 0.25) return;
  const minutes = 1 + Math.floor(run.random() * 9);
  const ms = (run.random() < 0.5 ? -1 : 1) * minutes * 60_000;
  run.world.sim.admin.setClockOffset(ms);
  // Its webhooks are signed with its own date; more than 5 minutes off, the daemon refuses them.
  run.webhooks.clockOffsetMs = ms;
  run.note(`service: its clock ${minutes} min ${ms < 0 ? 'behind' : 'ahead'}`);
  run.count(`service: clock ${ms < 0 ? 'behind' : 'ahead'}`);
}

/**
 * Once quiet: an entity the service no longer has keeps its folder, each document folder it had
 * and each file in it (a sync under way may still take away bytes a user deleted before); a
 * document the service still has, named by a wrong `deleteDocument` or missing from a listing,
 * is in the service and in its folder, and its folder never went to the trash, unless a user
 * deleted it.
 */
export function serviceWorldFindings(
  o: Observed,
  ledger: SimLedger,
  book: ServiceBook,
  root: string,
): Finding[] {
  const findings: Finding[] = [];
  for (const v of book.vanished) {
    const lost = (detail: string) =>
      findings.push({
        invariant: ENTITY_FOLDER_KEPT,
        detail: `${ownerKeyOf(v.owner)} (${v.how}): ${detail}`,
      });
    if (v.folder === null) continue;
    // Deleted by a user before the entity went, or let go since by a person's decision (one
    // they may have taken before it went, carried out after).
    const letGo = (sha: string) => v.deletedBefore.has(sha) || ledger.operatorLetGo.has(sha);
    if (!existsSync(path.join(root, ...v.folder.split('/')))) {
      lost(`its folder ${v.folder} is gone`);
      continue;
    }
    const under = [...o.tree].filter(([rel]) => rel.startsWith(`${v.folder}/`));
    const anywhere = new Set(under.map(([, sha]) => sha));
    for (const [rel, sha] of v.loose)
      if (!o.tree.has(rel) && !anywhere.has(sha) && !letGo(sha)) lost(`${rel} is gone`);
    for (const [id, files] of v.documents) {
      // Only what the service still had: a document deleted there just before may still go to
      // the trash by a sync under way, and so may one a later message calls deleted, which the
      // service's 404 then bears out (its entity's documents went with it).
      const told = book.watched.some((w) => w.id === id);
      if (!v.names.has(id) || ledger.removedFromStore.has(id) || told) continue;
      const folder = o.folders.get(id)?.find((f) => f.startsWith(`${v.folder}/`));
      if (folder === undefined) {
        lost(`the folder of document ${id} is gone`);
        continue;
      }
      const now = new Map<string, string>();
      for (const [rel, sha] of o.tree)
        if (rel.startsWith(`${folder}/`)) now.set(rel.slice(folder.length + 1), sha);
      const shas = new Set(now.values());
      for (const [file, sha] of files)
        if (!now.has(file) && !shas.has(sha) && !letGo(sha)) lost(`${folder}/${file} is gone`);
    }
  }
  const inService = new Map(o.dump.documents.map((d) => [d.id, d]));
  const trashed = trashedDocuments(root);
  for (const w of book.watched) {
    const userDeleted =
      ledger.removedFromStore.has(w.id) || [...w.names].some((n) => ledger.deletedNames.has(n));
    if (userDeleted) continue;
    const wrong = (detail: string) =>
      findings.push({
        invariant: NOT_DELETED_ON_A_WORD,
        detail: `document ${w.id} (${w.why}) ${detail}`,
      });
    if (!inService.has(w.id)) {
      if (!book.vanished.some((v) => v.names.has(w.id))) wrong('was deleted in the service');
      continue;
    }
    if (o.held.has(w.id)) continue;
    if (!o.folders.has(w.id)) wrong('has no folder');
    else if (trashed.has(w.id)) wrong(`went to the trash (${trashed.get(w.id)}) and came back`);
  }
  return findings;
}

/**
 * Document folders docsync put in the trash, by the id their `.document.json` names: not the
 * service's copies made before a delete in the service (`.docsync-service-copy.json`).
 */
function trashedDocuments(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    if (!existsSync(dir)) return;
    const entries = readdirSync(dir, { withFileTypes: true });
    const names = new Set(entries.map((e) => e.name));
    if (names.has('.document.json') && !names.has('.docsync-service-copy.json')) {
      try {
        const id = (
          JSON.parse(readFileSync(path.join(dir, '.document.json'), 'utf8')) as { id?: unknown }
        ).id;
        if (id !== undefined && id !== null) found.set(String(id), rel);
      } catch {
        // Not a readable record: names no document.
      }
    }
    for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name), `${rel}/${e.name}`);
  };
  walk(path.join(root, '.docsync', 'trash'), '.docsync/trash');
  return found;
}

/**
 * Whether `folder` (a document folder, relative) lies in the folder of an entity the service no
 * longer lists: docsync forgets such an entity and keeps its folder as it is, unsynced
 * (refresh-entities.ts), so its documents have no rows.
 */
export function inEntityGone(root: string, folder: string, dump: StateDump): boolean {
  const [top, name] = folder.split('/');
  if (!top || !name) return false;
  let id: string;
  try {
    const json = JSON.parse(readFileSync(path.join(root, top, name, '.entity.json'), 'utf8'));
    id = String((json as { id?: unknown }).id);
  } catch {
    return false;
  }
  const listed =
    top === 'Companies'
      ? dump.companies.some((c) => String(c.id) === id)
      : dump.trusts.some((t) => String(t.id) === id);
  return !listed;
}

/**
 * A write the service answered 429 ("not now") is tried again as soon as it is due, never held
 * back as a refusal (push.ts): a push failed on a 429 with a backoff before its next try is one.
 */
export function rateLimitFindings(state: StateStore): Finding[] {
  return state.outbox
    .failed()
    .filter((p) => / answered 429/.test(p.lastError ?? '') && (p.nextAttemptAt ?? 0) > p.updatedAt)
    .map((p) => ({
      invariant: NOT_A_REFUSAL,
      detail: `${p.kind} ${p.idempotencyKey} waits until ${new Date(p.nextAttemptAt!).toISOString()} after "${p.lastError}"`,
    }));
}
