/**
 * The firm's companies and trusts, read from the service and tied to folders. A folder is tied
 * by the id in its `.entity.json`; at the initial sync a firm's existing folder without one is
 * matched as the interface says: companies by company number, trusts by ABN, then by name
 * (compared on the folder's name, where the firm's own system put them).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { entityDeepLink } from '../domain/deep-links.js';
import { RunStoppedError } from '../domain/errors.js';
import { entityFolderName } from '../domain/local-folder-names.js';
import { ownerKey } from '../domain/owner-key.js';
import { renamedFolders } from '../domain/renamed-folders.js';
import type { Entity, OwnerKind } from '../domain/types.js';
import { ENTITY_ROOTS, type LocalEntityFolder } from '../local/local-store.js';
import type { MalformedEntry } from '../remote/remote-store.js';
import type { EntityRecord, MatchedBy } from '../state/entity-repo.js';
import type { NewRecordError } from '../state/record-errors-repo.js';
import { forgetEntity } from './commit-agreed.js';
import type { EngineDeps } from './engine-deps.js';
import { isDocumentFolder } from './held-folders.js';

const digits = (text: string | null | undefined) => (text ?? '').replace(/\D/g, '');
const baseName = (folder: string) => folder.slice(folder.lastIndexOf('/') + 1);
/** The name part of `Name (123 456 789)`, lower-cased, for the name match. */
const nameOf = (folder: string) =>
  baseName(folder)
    .replace(/\s*\([\d\s]+\)\s*$/, '')
    .trim()
    .toLowerCase();
/** The number in the trailing parentheses of a folder name, digits only. */
const numberOf = (folder: string) => digits(/\(([\d\s]+)\)\s*$/.exec(baseName(folder))?.[1]);

export function matchFolder(
  entity: Entity,
  free: readonly LocalEntityFolder[],
): { folder: string; by: MatchedBy } | null {
  const top = entity.kind === 'company' ? 'Companies/' : 'Trusts/';
  const candidates = free.filter((f) => f.folder.startsWith(top));
  const number = digits(entity.kind === 'company' ? entity.number : entity.abn);
  if (number) {
    const byNumber = candidates.find((f) => numberOf(f.folder) === number);
    if (byNumber)
      return { folder: byNumber.folder, by: entity.kind === 'company' ? 'number' : 'abn' };
  }
  if (entity.kind === 'trust') {
    const byName = candidates.filter((f) => nameOf(f.folder) === entity.name.trim().toLowerCase());
    // Two folders with the trust's name: which one is meant is the firm's call, not ours.
    if (byName.length === 1) return { folder: byName[0]!.folder, by: 'name' };
  }
  return null;
}

/**
 * The refresh in flight, per state store, with its number: a second caller (a webhook naming a
 * new company while the first sync reads the catalogue) waits for the first one's result rather
 * than reading the catalogue beside it. Two refreshes at once each found no folder and each made
 * one: every entity got a `… (2)` twin.
 */
const inFlight = new WeakMap<
  EngineDeps['state'],
  { readonly serial: number; readonly read: Promise<EntityRecord[]> }
>();
/** Refreshes begun, per state store. */
const begun = new WeakMap<EngineDeps['state'], number>();

/**
 * Reads the companies and trusts again and ties each to its folder; single-flight (see
 * `inFlight`). A caller joins only a read begun after it asked: one begun before may have read
 * the list before the service made the company a webhook names, and that webhook's event would be
 * done as naming a company the service does not list. It waits for such a read to end and reads
 * again (or joins the read begun since). Takes no entity lock itself but to forget an entity, so
 * a caller must not hold one.
 */
export async function refreshEntities(
  deps: EngineDeps,
  signal?: AbortSignal,
): Promise<EntityRecord[]> {
  const asked = begun.get(deps.state) ?? 0;
  // Every caller stops here in the simulation, the one that joins a refresh under way too.
  if (deps.failpoint) await deps.failpoint('catalogue-refresh', {});
  for (let running = inFlight.get(deps.state); running; running = inFlight.get(deps.state)) {
    if (running.serial > asked) return running.read;
    await running.read.catch(() => undefined);
  }
  const serial = (begun.get(deps.state) ?? 0) + 1;
  begun.set(deps.state, serial);
  const read = readCatalogue(deps, false, signal).finally(() => inFlight.delete(deps.state));
  inFlight.set(deps.state, { serial, read });
  return read;
}

/**
 * The catalogue as a dry run sees it: each entity tied to its folder as a refresh would tie it,
 * or to the folder a refresh would make, and nothing made, written or forgotten. Before the first
 * sync the root may not exist yet: every entity then gets the folder the first sync would make.
 */
export async function previewEntities(deps: EngineDeps): Promise<EntityRecord[]> {
  return readCatalogue(deps, true);
}

async function readCatalogue(
  deps: EngineDeps,
  dryRun = false,
  signal?: AbortSignal,
): Promise<EntityRecord[]> {
  const read = new CatalogueRead(deps);
  // With details: `.entity.json` promises the company's labels, client number and super funds
  // (daemon.md), and the same list request returns them.
  for await (const entry of deps.remote.companies({ details: true })) read.take('company', entry);
  for await (const entry of deps.remote.trusts()) read.take('trust', entry);
  const { entities } = read;
  const folders = await deps.local.listEntityFolders();
  if (dryRun) return previewRecords(deps, entities, folders);
  read.report();
  // Links in place of an entity folder are never followed: said, not silently passed over.
  const links = await deps.local.skippedEntityFolders();
  for (const entry of deps.state.skipped.replaceEntityFolders(links, deps.now()))
    deps.logger.warn({ path: entry.path }, `not synced: ${entry.path}: ${entry.reason}`);
  const ties = new FolderTies(folders);
  const claims = new FolderClaims(deps);
  const records: EntityRecord[] = [];
  for (const entity of entities) {
    // Thousands of folders made durably at a first sync: a stop ends the read between two, and
    // forgets nothing (the folders made so far are tied again by their `.entity.json`).
    if (signal?.aborted)
      throw new RunStoppedError('the catalogue read stopped: docsync is stopping', false);
    const known = deps.state.entities.get(entity);
    const { tied, taken, match, held } = ties.tie(deps, entity, known);
    if (held) {
      records.push(known!);
      continue;
    }
    if (tied && known?.folder && tied !== known.folder)
      noteRename(deps, entity, known.folder, tied);
    const link = entityDeepLink(deps.settings.webUrl, entity);
    if (deps.failpoint)
      await deps.failpoint('before-local-write', { owner: entity, what: 'entity folder' });
    // The listing above is the search: a folder it found, or none (null), never a second look.
    const found = tied ?? taken ?? null;
    const claimed = found === null ? claims.except(entity) : [];
    const folder = await deps.local.ensureEntityFolder(entity, link, found, claimed);
    const matchedBy: MatchedBy =
      match?.by ?? known?.matchedBy ?? (tied ? 'entity-json' : 'created');
    const record = { entity, folder, matchedBy, updatedAt: deps.now() };
    deps.state.entities.upsert(record);
    records.push(record);
  }
  // A turn for what waits (a webhook's answer, a monitor's /healthz) between the firm's folders
  // and its every known entity, each a pass over thousands of rows at firm size.
  await yieldToLoop();
  await forgetVanished(deps, entities, read.unreadable);
  // Held document folders (held-folders.ts) share the list; only entity rows are replaced here.
  const before = deps.state.entities.listUnmatchedFolders();
  const heldRows = before.filter((f) => isDocumentFolder(f.folder));
  const listed = new Set(before.map((f) => f.folder));
  const unmatched = ties.free.map((f) => ({
    folder: f.folder,
    kind: kindOf(f.folder),
    reason: UNMATCHED_REASON,
    seenAt: deps.now(),
  }));
  deps.state.entities.replaceUnmatchedFolders([...heldRows, ...unmatched]);
  // Said once, when first seen; `docsync status` and the page keep listing it.
  for (const u of unmatched.filter((f) => !listed.has(f.folder)))
    deps.logger.warn({ folder: u.folder }, `unmatched folder: ${u.folder}: ${u.reason}`);
  return records;
}

/** Each entity with the folder a refresh would tie it to, or make for it; nothing is written. */
function previewRecords(
  deps: EngineDeps,
  entities: readonly Entity[],
  folders: readonly LocalEntityFolder[],
): EntityRecord[] {
  const ties = new FolderTies(folders);
  return entities.map((entity) => {
    const known = deps.state.entities.get(entity);
    const { tied, taken, match, held } = ties.tie(deps, entity, known);
    if (held) return known!;
    const folder = tied ?? taken ?? `${ENTITY_ROOTS[entity.kind]}/${entityFolderName(entity)}`;
    const matchedBy: MatchedBy =
      match?.by ?? known?.matchedBy ?? (tied ? 'entity-json' : 'created');
    return { entity, folder, matchedBy, updatedAt: deps.now() };
  });
}

/**
 * Which folder each entity of one catalogue read is tied to: the first folder whose
 * `.entity.json` names it, else its known folder still there without one, else (never tied
 * before) a free folder matched by number or name, each free folder taken once. `held`: none of
 * those, and the entity had documents (agreed, or placed by a pull not yet committed): its
 * folder is gone (moved, archived or unmounted, not deleted), and a new empty folder in its
 * place would read as "every document deleted"; the record keeps its folder, and the cycle
 * holds the entity until it is back (row 50).
 */
class FolderTies {
  readonly #free: LocalEntityFolder[];
  readonly #tied = new Map<string, string>();

  constructor(folders: readonly LocalEntityFolder[]) {
    this.#free = folders.filter((f) => f.owner === null);
    for (const f of folders) {
      const key = f.owner ? ownerKey(f.owner) : null;
      if (key && !this.#tied.has(key)) this.#tied.set(key, f.folder);
    }
  }

  tie(deps: EngineDeps, entity: Entity, known: EntityRecord | null) {
    const free = this.#free;
    const tied = this.#tied.get(ownerKey(entity));
    const untied = !tied && known?.folder ? free.find((f) => f.folder === known.folder) : undefined;
    const match = tied || known?.folder ? null : matchFolder(entity, free);
    const taken = untied?.folder ?? match?.folder;
    if (taken)
      free.splice(
        free.findIndex((f) => f.folder === taken),
        1,
      );
    // A document placed and not yet committed (a pull in doubt) is one the folder held too;
    // asked only of an entity whose folder is not found, not of every entity at every read.
    const held =
      !tied &&
      !taken &&
      !!known?.folder &&
      (deps.state.base.count(entity) > 0 || deps.state.pullsInDoubt.forOwner(entity).length > 0);
    return { tied, taken, match, held };
  }

  /** The folders no entity took. */
  get free(): readonly LocalEntityFolder[] {
    return this.#free;
  }
}

/**
 * The folders of the entities docsync knows, read once this read must make one. A folder made
 * for an entity never takes another's path: one held while its folder is away (row 50), or one
 * the service no longer lists and this read has not forgotten yet, comes back there. An entity the service
 * deleted and entered again under a new id, by the same name, while a person had its folder
 * moved away, took the path; the person's folder could not come back, and the new record's
 * folder clashed with the old one's, so every read of the catalogue failed.
 */
class FolderClaims {
  /** Read when the first folder must be made: most reads of the catalogue make none. */
  #byOwner: ReadonlyMap<string, string> | null = null;

  constructor(private readonly deps: EngineDeps) {}

  /** The folders claimed by entities other than `entity` (its own may be made again). */
  except(entity: Entity): string[] {
    this.#byOwner ??= new Map(
      this.deps.state.entities.folders().map((f) => [ownerKey(f.owner), f.folder]),
    );
    const own = ownerKey(entity);
    return [...this.#byOwner].filter(([owner]) => owner !== own).map(([, folder]) => folder);
  }
}

/**
 * The entity's folder is found under a new name (by its `.entity.json`): it keeps syncing there,
 * and the new name, which the service cannot take, is said (renamed-folders.ts).
 */
function noteRename(deps: EngineDeps, entity: Entity, from: string, to: string): void {
  deps.logger.info({ owner: ownerKey(entity), from, to }, `entity folder renamed: ${from} → ${to}`);
  const [note] = renamedFolders({
    owner: entity,
    entityName: entity.name,
    knownFolder: from,
    folder: to,
    base: new Map(),
    documents: [],
    noted: new Set(),
  });
  if (note) deps.state.skipped.note(entity, note, deps.now());
}

/**
 * Entities the service no longer lists: their folders stay; docsync stops syncing them. Each is
 * forgotten under its lock, after a sync of it in flight, never in the middle of one. A record
 * the service sent but docsync could not read is not gone: it is kept, by its id, or, when even
 * its id could not be read, every entity of its kind is.
 */
async function forgetVanished(deps: EngineDeps, listed: readonly Entity[], unreadable: Unreadable) {
  // An empty listing is more likely a service fault than a firm with no clients left.
  if (listed.length === 0) return;
  const ids = new Set([...listed.map(ownerKey), ...unreadable.owners]);
  for (const { owner, folder } of deps.state.entities.owners()) {
    const { kind, id } = owner;
    if (unreadable.withoutId.has(kind)) continue;
    if (!ids.has(ownerKey(owner))) {
      deps.logger.warn(
        { owner: { kind, id }, folder },
        'entity no longer in the service; its folder is kept',
      );
      await deps.locks.run({ kind, id }, 'forget', (lease) =>
        forgetEntity(deps, lease, { kind, id }),
      );
    }
  }
}

/** Records in error that still name an entity (by `ownerKey`), and kinds with one naming none. */
interface Unreadable {
  readonly owners: ReadonlySet<string>;
  readonly withoutId: ReadonlySet<OwnerKind>;
}

/**
 * One read of the catalogue: the entities to sync, and the records that are not (or not whole):
 * one bad record never stops the rest. Each is said in the log, and kept for `docsync status`
 * and the page until the service sends it right.
 */
class CatalogueRead {
  readonly entities: Entity[] = [];
  readonly #errors: NewRecordError[] = [];
  readonly #owners = new Set<string>();
  readonly #withoutId = new Set<OwnerKind>();

  constructor(private readonly deps: EngineDeps) {}

  get unreadable(): Unreadable {
    return { owners: this.#owners, withoutId: this.#withoutId };
  }

  take(kind: OwnerKind, entry: Entity | MalformedEntry): void {
    if ('malformed' in entry) {
      if (entry.id === null) this.#withoutId.add(kind);
      else this.#owners.add(ownerKey({ kind, id: entry.id }));
      const which = entry.id === null ? `a ${kind} without a readable id` : `${kind} ${entry.id}`;
      this.#errors.push({
        kind,
        id: entry.id,
        level: 'error',
        reason: `${which}: ${entry.error.message}; not synced until the service sends it whole`,
      });
      return;
    }
    if (entry.kind === 'trust' && entry.unnamed) {
      // A name read before (from the service) beats "Trust <id>": the folder keeps its name.
      const known = this.deps.state.entities.get(entry)?.entity.name;
      const name = known && known !== entry.name ? known : entry.name;
      this.#errors.push({
        kind,
        id: entry.id,
        level: 'warning',
        reason: `trust ${entry.id}: ${entry.unnamed}; named "${name}"`,
      });
      this.entities.push({ ...entry, name });
      return;
    }
    this.entities.push(entry);
  }

  /** Into the log, and into the state for `docsync status` and the page. */
  report(): void {
    const { deps } = this;
    deps.state.recordErrors.replace(['company', 'trust'], this.#errors, deps.now());
    for (const e of this.#errors) {
      const owner = e.id === null ? null : ownerKey({ kind: e.kind, id: e.id });
      if (e.level === 'error') deps.logger.error({ owner }, `service record in error: ${e.reason}`);
      else deps.logger.warn({ owner }, `service record incomplete: ${e.reason}`);
    }
  }
}
const UNMATCHED_REASON =
  "no company or trust in the service matches this folder (by its .entity.json, the number in its name, or a trust's name); nothing in it is synced";

const kindOf = (folder: string): OwnerKind =>
  folder.startsWith('Companies/') ? 'company' : 'trust';
