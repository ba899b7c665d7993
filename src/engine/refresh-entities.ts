/**
 * The firm's companies and trusts, read from the service and tied to folders. A folder is tied
 * by the id in its `.entity.json`; at the initial sync a firm's existing folder without one is
 * matched as the interface says: companies by company number, trusts by ABN, then by name
 * (compared on the folder's name, where the firm's own system put them).
 */
import { entityDeepLink } from '../domain/deep-links.js';
import { ownerKey } from '../domain/owner-key.js';
import type { Entity, OwnerKind } from '../domain/types.js';
import type { LocalEntityFolder } from '../local/local-store.js';
import type { EntityRecord, MatchedBy } from '../state/entity-repo.js';
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

export async function refreshEntities(deps: EngineDeps): Promise<EntityRecord[]> {
  if (deps.failpoint) await deps.failpoint('catalogue-refresh', {});
  const entities: Entity[] = [];
  // With details: `.entity.json` promises the company's labels, client number and super funds
  // (daemon.md), and the same list request returns them.
  for await (const company of deps.remote.companies({ details: true })) entities.push(company);
  for await (const trust of deps.remote.trusts()) entities.push(trust);

  const folders = await deps.local.listEntityFolders();
  // Links in place of an entity folder are never followed: said, not silently passed over.
  const links = await deps.local.skippedEntityFolders();
  for (const entry of deps.state.skipped.replaceEntityFolders(links, deps.now()))
    deps.logger.warn({ path: entry.path }, `not synced: ${entry.path}: ${entry.reason}`);
  const free = folders.filter((f) => f.owner === null);
  // The first folder naming each entity, as a lookup by id would find it.
  const tiedFolders = new Map<string, string>();
  for (const f of folders) {
    const key = f.owner ? ownerKey(f.owner) : null;
    if (key && !tiedFolders.has(key)) tiedFolders.set(key, f.folder);
  }
  const records: EntityRecord[] = [];
  for (const entity of entities) {
    const known = deps.state.entities.get(entity);
    const tied = tiedFolders.get(ownerKey(entity));
    // Its folder, still where it was but without a readable `.entity.json` (deleted by a user):
    // tied again, rather than a second folder made beside it.
    const untied = !tied && known?.folder ? free.find((f) => f.folder === known.folder) : undefined;
    const match = tied || known?.folder ? null : matchFolder(entity, free);
    const taken = untied?.folder ?? match?.folder;
    if (taken)
      free.splice(
        free.findIndex((f) => f.folder === taken),
        1,
      );
    if (!tied && !taken && known?.folder && deps.state.base.count(entity) > 0) {
      // The folder of an entity with documents is gone: moved, archived or unmounted, not
      // deleted. A new empty folder in its place would read as "every document deleted"; the
      // record keeps its folder, and the cycle holds the entity until it is back (row 50).
      records.push(known);
      continue;
    }
    const link = entityDeepLink(deps.settings.webUrl, entity);
    if (deps.failpoint)
      await deps.failpoint('before-local-write', { owner: entity, what: 'entity folder' });
    // The listing above is the search: a folder it found, or none (null), never a second look.
    const folder = await deps.local.ensureEntityFolder(entity, link, tied ?? taken ?? null);
    const matchedBy: MatchedBy =
      match?.by ?? known?.matchedBy ?? (tied ? 'entity-json' : 'created');
    const record = { entity, folder, matchedBy, updatedAt: deps.now() };
    deps.state.entities.upsert(record);
    records.push(record);
  }
  forgetVanished(deps, entities);
  // Held document folders (held-folders.ts) share the list; only entity rows are replaced here.
  const heldRows = deps.state.entities
    .listUnmatchedFolders()
    .filter((f) => isDocumentFolder(f.folder));
  deps.state.entities.replaceUnmatchedFolders([
    ...heldRows,
    ...free.map((f) => ({
      folder: f.folder,
      kind: kindOf(f.folder),
      reason: 'no company or trust in the service matches this folder',
      seenAt: deps.now(),
    })),
  ]);
  return records;
}

/** Entities the service no longer lists: their folders stay; docsync stops syncing them. */
function forgetVanished(deps: EngineDeps, listed: readonly Entity[]) {
  // An empty listing is more likely a service fault than a firm with no clients left.
  if (listed.length === 0) return;
  const ids = new Set(listed.map(ownerKey));
  for (const record of deps.state.entities.list()) {
    const { kind, id } = record.entity;
    if (!ids.has(ownerKey(record.entity))) {
      deps.logger.warn(
        { owner: { kind, id }, folder: record.folder },
        'entity no longer in the service; its folder is kept',
      );
      deps.state.forgetEntity({ kind, id });
    }
  }
}

const kindOf = (folder: string): OwnerKind =>
  folder.startsWith('Companies/') ? 'company' : 'trust';
