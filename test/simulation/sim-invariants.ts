/**
 * What must hold once a seed's world is quiet (docs/simulation.md), each invariant a function
 * of what the three places hold (the service, the folder, the state) and the ledger:
 * 1. every edit by either side is on both sides or in a recorded conflict copy: the bytes each
 *    user wrote and did not delete, in their document, under their name and kind; the last
 *    status set on each document, by either side (sim-losses.ts);
 * 2. no duplicate record, folder or attachment;
 * 3. every deletion in the service has its trash copy (checked as each delete is sent:
 *    `trashCopyMissing`);
 * 4. no entity was ever in two syncs (counted as the work starts: sim-ledger.ts);
 * 5. every webhook event was processed, and a deletion it named was carried out; it was done only
 *    once a sync of its entity, begun after it came, went through;
 * 6. the state tables agree with both sides;
 * 7. a further round changes nothing (the runner's quiet check);
 * 9. nothing disappeared that nobody deleted: every document of the world as the seed found it
 *    or made since, with its name and date (sim-losses.ts);
 * 10. every file docsync removes or replaces in the folder is in the trash with its bytes
 *    (checked as each goes: trash-watch.ts);
 * 11. once quiet, poll rounds alone have converged: a full round changes no agreed row, no
 *    cursor and no file (convergence.ts);
 * 12. what a service user removed stays removed: an attachment taken out of a document is not
 *    back in it on either side (sim-removals.ts).
 * The chaos suite's checks (test/chaos/chaos-invariants.ts) judge the same bytes and records
 * with expect(); here every breach is collected as a finding, so a run of many seeds can count
 * and print them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { BaseDocument } from '../../src/domain/types.js';
import type { StateDump } from '../../src/simulator/index.js';
import type { ConflictRecord } from '../../src/state/conflict-repo.js';
import type { CycleRecord } from '../../src/state/cycle-repo.js';
import type { StateStore } from '../../src/state/state-store.js';
import { folderFiles, sha256 } from '../helpers/sync-harness.js';
import { inEntityGone } from './service-world.js';
import type { Finding, SimLedger } from './sim-ledger.js';
import { EDITS_KEPT, lossFindings } from './sim-losses.js';
import { removalFindings } from './sim-removals.js';
import { treeOf } from './sim-view.js';
import type { QueuedWebhook } from './sim-webhooks.js';

export { EDITS_KEPT, NOTHING_LOST } from './sim-losses.js';
export const NO_DUPLICATES = 'no duplicate record, folder or attachment';
export const TRASH_COPY = 'every deletion in the service has its trash copy';
export const WEBHOOKS_DONE = 'every webhook event was processed';
export const TABLES_AGREE = 'the state tables agree with both sides';
export const QUIET = 'once quiet, a further round changes nothing';

/** What a document folder's `.document.json` shows. */
export interface FolderMeta {
  /** `kind:id` of the document's entity. */
  readonly owner: string | null;
  readonly name: string | null;
  readonly documentDate: string | null;
  readonly status: string | null;
}

/** The three places, read at one quiet moment. */
export interface Observed {
  readonly dump: StateDump;
  /** The folder outside `.docsync/`: relative path → sha256. */
  readonly tree: ReadonlyMap<string, string>;
  /** Document folders by the id their `.document.json` names. */
  readonly folders: ReadonlyMap<string, readonly string[]>;
  readonly base: readonly BaseDocument[];
  readonly conflicts: readonly ConflictRecord[];
  /** Documents with an item in error: a status the service refused stays in their folder. */
  readonly inError: ReadonlySet<string>;
  /** Documents whose delete a rail holds for a person: one side has them, the other not yet. */
  readonly held: ReadonlySet<string>;
  /** What each document folder's `.document.json` shows, by folder. */
  readonly metas: ReadonlyMap<string, FolderMeta>;
  /**
   * Documents made from a folder that was moved out of its entity folder or removed before the
   * service answered, and is nowhere in the store: recorded as created until it is back
   * (docs/syncing.md), the service has them and no row does. Each with the document it was
   * made again in place of (rows 12, 19, 54), or null.
   */
  readonly awaitingFolder: ReadonlyMap<string, string | null>;
}

export async function observe(root: string, state: StateStore, dump: StateDump): Promise<Observed> {
  const tree = treeOf(root);
  const folders = new Map<string, string[]>();
  const metas = new Map<string, FolderMeta>();
  for (const rel of tree.keys()) {
    if (path.posix.basename(rel) !== '.document.json') continue;
    const meta = readMeta(path.join(root, ...rel.split('/')));
    const folder = path.posix.dirname(rel);
    if (meta?.id) folders.set(meta.id, [...(folders.get(meta.id) ?? []), folder]);
    if (meta) metas.set(folder, meta);
  }
  const base = state.entities.list().flatMap((r) => [...state.base.listByOwner(r.entity).values()]);
  const inError = new Set(
    state.problems.list().flatMap((p) => (p.documentId ? [p.documentId] : [])),
  );
  const held = new Set(state.heldDeletes.list().map((h) => h.documentId));
  const awaitingFolder = new Map(
    state.outbox
      .inDoubt()
      .flatMap((i) =>
        i.kind === 'create-document' &&
        i.payload.createdId &&
        !folders.has(i.payload.createdId) &&
        ![...tree.keys()].some((rel) => rel.startsWith(`${i.payload.folder}/`))
          ? [[i.payload.createdId, i.payload.replaces ?? null] as const]
          : [],
      ),
  );
  const conflicts = state.conflicts.list(10_000);
  return { dump, tree, folders, base, conflicts, inError, held, metas, awaitingFolder };
}

/** The shas of every file under `.docsync/trash/`. */
export function trashShas(root: string): Set<string> {
  return filesUnder(path.join(root, '.docsync', 'trash'));
}

/** The sha256 of every file at or under `at` (a file, or a folder walked whole). */
export function filesUnder(at: string): Set<string> {
  const shas = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const child = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) shas.add(sha256(readFileSync(child)));
    }
  };
  if (!existsSync(at)) return shas;
  if (statSync(at).isDirectory()) walk(at);
  else shas.add(sha256(readFileSync(at)));
  return shas;
}

export function finalFindings(o: Observed, ledger: SimLedger, root: string): Finding[] {
  return [
    ...lossFindings(o, ledger),
    ...removalFindings(o, ledger),
    ...duplicates(o, ledger, root),
    ...tablesAgree(o, root),
  ];
}

function duplicates(o: Observed, ledger: SimLedger, root: string): Finding[] {
  const findings: Finding[] = [];
  const dup = (detail: string) => findings.push({ invariant: NO_DUPLICATES, detail });
  for (const [id, folders] of o.folders)
    if (folders.length > 1)
      dup(`document ${id} has ${folders.length} folders: ${folders.join(', ')}`);
  for (const [id, folders] of entityFolders(root))
    if (folders.length > 1)
      dup(`entity ${id} has ${folders.length} folders: ${folders.join(', ')}`);
  for (const doc of o.dump.documents) {
    const shas = doc.attachments.map((a) => a.sha256);
    const twice = shas.filter((s, i) => shas.indexOf(s) !== i);
    for (const sha of new Set(twice))
      dup(
        `document ${doc.id} holds ${sha.slice(0, 12)} as ${doc.attachments
          .filter((a) => a.sha256 === sha)
          .map((a) => a.name)
          .join(', ')}`,
      );
  }
  const byName = new Map<string, string[]>();
  for (const doc of o.dump.documents)
    byName.set(doc.name, [...(byName.get(doc.name) ?? []), doc.id]);
  for (const name of ledger.madeNames) {
    const ids = byName.get(name) ?? [];
    const deleted = ledger.deletedNames.has(name);
    if (ids.length > 1) dup(`documents named "${name}": ${ids.join(', ')}`);
    else if (ids.length === 0 && !deleted)
      findings.push({
        invariant: EDITS_KEPT,
        detail: `document "${name}" a user made is not in the service`,
      });
  }
  return findings;
}

/** Entity folders by the id their `.entity.json` names. */
function entityFolders(root: string): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const top of ['Companies', 'Trusts']) {
    const dir = path.join(root, top);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const id = readId(path.join(dir, entry.name, '.entity.json'));
      if (id) byId.set(id, [...(byId.get(id) ?? []), `${top}/${entry.name}`]);
    }
  }
  return byId;
}

/**
 * Every agreed document is in the service and in the folder its row names, with the files and
 * the status the row agreed on; every document of either side has its row.
 */
function tablesAgree(o: Observed, root: string): Finding[] {
  const findings: Finding[] = [];
  const off = (detail: string) => findings.push({ invariant: TABLES_AGREE, detail });
  const service = new Map(o.dump.documents.map((d) => [d.id, d]));
  const rows = new Map(o.base.map((b) => [b.id, b]));
  for (const b of o.base) {
    if (o.held.has(b.id)) continue;
    const doc = service.get(b.id);
    if (!doc) {
      off(`the agreed document ${b.id} (${b.folder}) is not in the service`);
      continue;
    }
    const folder = o.folders.get(b.id)?.[0];
    if (folder !== b.folder) {
      off(`the agreed document ${b.id} is in ${folder ?? 'no folder'}, its row says ${b.folder}`);
      continue;
    }
    const files = folderFiles(o.tree, folder);
    for (const a of b.attachments) {
      const remote = doc.attachments.find((r) => r.id === a.id);
      if (remote?.sha256 !== a.sha256)
        off(
          `${b.id}/${a.file}: the row has ${a.sha256.slice(0, 12)}, the service ${remote?.sha256.slice(0, 12) ?? 'nothing'}`,
        );
      if (files.get(a.file) !== a.sha256)
        off(
          `${b.id}/${a.file}: the row has ${a.sha256.slice(0, 12)}, the folder ${files.get(a.file)?.slice(0, 12) ?? 'nothing'}`,
        );
    }
    for (const r of doc.attachments)
      if (!b.attachments.some((a) => a.id === r.id))
        off(`${b.id}: attachment ${r.id} (${r.name}) has no row`);
    const typeId = doc.status ? String(doc.status.typeId) : null;
    if (b.statusTypeId !== typeId)
      off(`${b.id}: the row's status type ${b.statusTypeId}, the service's ${typeId}`);
    const typed = o.metas.get(folder)?.status ?? null;
    const known = o.dump.statusTypes.some(
      (t) => t.name.toLowerCase() === (typed ?? '').toLowerCase(),
    );
    // A status the service does not know stays in the folder, its refusal an item in error.
    const refused = !known && o.inError.has(b.id);
    if (!refused && (typed ?? '').toLowerCase() !== (doc.status?.type ?? '').toLowerCase())
      off(`${b.id}: the folder says status "${typed}", the service "${doc.status?.type ?? null}"`);
  }
  for (const doc of o.dump.documents)
    if (!rows.has(doc.id) && !o.held.has(doc.id) && !o.awaitingFolder.has(doc.id))
      off(`the service's document ${doc.id} (${doc.name}) has no row`);
  for (const [id, folders] of o.folders)
    if (!rows.has(id) && !inEntityGone(root, folders[0]!, o.dump))
      off(`the folder ${folders[0]} names document ${id}, which has no row`);
  return findings;
}

/**
 * Each webhook the receiver took was worked on to the end: its row is done, and a deletion it
 * named is carried out (the document has no row any more) or held by a rail for a person. It was
 * done only once a sync of its entity went through: one the daemon started after the event came
 * (its cycle newer than `cyclesBefore`, or, for a poll of a round, which records no cycle of its
 * own, seen by the harness to begin after the post: `answered`) and finished, not failed nor cut
 * short, by the time the event was marked done (docs/beside-the-daemon.md: "done only when the sync it asked for
 * succeeded"; a failed one is tried again in seconds, not left to the next poll round).
 *
 * `gone`: entities the service no longer has (`kind:id`): an event of one is moot (its sync fails
 * on every try, and the entity list says why), and a `deleteDocument` of one of their documents
 * too, as the entity's folder is kept whole (docs/syncing.md).
 */
export function webhookFindings(
  state: StateStore,
  sent: readonly QueuedWebhook[],
  gone: ReadonlySet<string> = new Set(),
): Finding[] {
  const findings: Finding[] = [];
  const held = new Set(state.heldDeletes.list().map((h) => h.documentId));
  const cycles = state.cycles.list(Number.MAX_SAFE_INTEGER);
  for (const hook of sent) {
    if (hook.deliveries === 0) continue;
    const row = state.webhookEvents.get(hook.eventId);
    const entityGone = gone.has(`${hook.owner.kind}:${hook.owner.id}`);
    if (row?.state !== 'done')
      findings.push({
        invariant: WEBHOOKS_DONE,
        detail: `${hook.subType} ${hook.documentId} (${hook.eventId}) is ${row?.state ?? 'not recorded'}${row?.lastError ? `: ${row.lastError}` : ''}`,
      });
    else if (!entityGone && !hook.answered && !syncedAfter(cycles, hook, row.updatedAt))
      findings.push({
        invariant: WEBHOOKS_DONE,
        detail: `${hook.subType} ${hook.documentId} (${hook.eventId}) is done, yet no sync of its entity went through after it came`,
      });
    else if (
      hook.subType === 'deleteDocument' &&
      !hook.wrong &&
      !entityGone &&
      state.base.get(hook.documentId) !== null &&
      !held.has(hook.documentId)
    )
      findings.push({
        invariant: WEBHOOKS_DONE,
        detail: `deleteDocument ${hook.documentId} (${hook.eventId}) is done, yet the document is still agreed and in the folder`,
      });
  }
  return findings;
}

/** What a cycle's result tells its request: these went through (work-scheduler.ts, `outcomeOf`). */
export const WENT_THROUGH: ReadonlySet<string> = new Set(['ok', 'partial', 'safety-stop']);

/** A cycle of the hook's entity, started after it came, went through by `doneAt`. */
function syncedAfter(cycles: readonly CycleRecord[], hook: QueuedWebhook, doneAt: number): boolean {
  return cycles.some(
    (c) =>
      c.id > hook.cyclesBefore &&
      c.owner?.kind === hook.owner.kind &&
      c.owner.id === hook.owner.id &&
      c.result !== null &&
      WENT_THROUGH.has(c.result) &&
      c.finishedAt !== null &&
      c.finishedAt <= doneAt,
  );
}

function readId(file: string): string | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { id?: unknown };
    return parsed.id === undefined || parsed.id === null ? null : String(parsed.id);
  } catch {
    return null;
  }
}

/** A `.document.json`'s id, name, date and status; null when it cannot be read. */
function readMeta(file: string): (FolderMeta & { readonly id: string | null }) | null {
  try {
    const meta = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const text = (v: unknown) => (v === undefined || v === null ? null : String(v));
    const owner = meta.owner as { kind?: unknown; id?: unknown } | undefined;
    return {
      id: text(meta.id),
      owner: owner ? `${text(owner.kind)}:${text(owner.id)}` : null,
      name: text(meta.name),
      documentDate: text(meta.documentDate),
      status: text(meta.status),
    };
  } catch {
    return null;
  }
}
