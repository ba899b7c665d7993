/**
 * Settles pushes a crash left in doubt (sent, outcome unknown) by reading the service, before a
 * cycle plans anything (docs/state.md): what happened is completed with its base, what did not
 * is closed as never sent, and the plan that follows makes it again if it is still wanted. This
 * is what lets a crash at any instant neither lose a change nor create a duplicate.
 */
import path from 'node:path';
import { type ActionResult, applyActionResult } from '../domain/apply-action-result.js';
import { assertNever } from '../domain/assert-never.js';
import { CreatedFolderMissingError, RunStoppedError } from '../domain/errors.js';
import { ownerKey } from '../domain/owner-key.js';
import { serviceTimeToLocalMs } from '../domain/timestamps.js';
import type {
  BaseDocument,
  EntryIdentity,
  OwnerRef,
  RemoteAttachment,
  RemoteDocument,
} from '../domain/types.js';
import type { Logger } from '../log/create-logger.js';
import { inLane } from '../remote/request-lane.js';
import type { NewConflict } from '../state/conflict-repo.js';
import type { OutboxItem } from '../state/outbox-repo.js';
import { isStateFailure } from '../state/state-failure.js';
import { attachmentSha256 } from './attachment-digest.js';
import { commitAgreed, type PushCompletion, pushCompleted } from './commit-agreed.js';
import type { CycleLeases } from './cycle-leases.js';
import type { EngineDeps } from './engine-deps.js';
import { fileNameNow, linkCreatedFolder } from './follow-identity.js';
import { isGone } from './push.js';
import { actionOfPush } from './push-actions.js';
import { finishReplace } from './push-replace.js';
import { pushedConflict, pushedStatusConflict } from './record-conflict.js';

type Verdict =
  | { readonly happened: true; readonly completion: PushCompletion }
  | { readonly happened: false }
  /**
   * It happened, and what remains cannot be done yet (a created document's folder is not in its
   * entity folder): the push stays in doubt, and its document is left alone meanwhile.
   */
  | { readonly happened: 'waiting'; readonly documentId: string; readonly why: string };
const notYet: Verdict = { happened: false };

/**
 * Writes `.document.json` of `folder` for `base`; with `folderIdentity`, only while the folder
 * is still that one (LocalChangedError naming the folder if not).
 */
export type SettleMetaWrite = (
  folder: string,
  base: BaseDocument,
  doc: RemoteDocument,
  folderIdentity?: EntryIdentity | null,
) => Promise<void>;

/**
 * Returns the documents whose pushes are still in doubt (the service could not be asked, or a
 * created document's folder is not where it can be linked). Each push is settled under its
 * entity's lease, from `leases` (the cycle's).
 */
export async function resolveInDoubt(
  deps: EngineDeps,
  log: Logger,
  writeMeta: SettleMetaWrite,
  leases: Pick<CycleLeases, 'hold'>,
  owners?: readonly OwnerRef[],
): Promise<Set<string>> {
  const unresolved = new Set<string>();
  // A cycle of some entities settles only theirs: syncs of other entities run beside it.
  const wanted = owners && new Set(owners.map(ownerKey));
  const items = deps.state.outbox.inDoubt().filter((i) => !wanted || wanted.has(ownerKey(i.owner)));
  for (const item of items) {
    // Held already, unless the push is another sync's, sent since the cycle took its locks:
    // once that sync lets the entity go, the push is done, or in doubt and settled here.
    const lease = await leases.hold(item.owner);
    if (deps.state.outbox.get(item.id)?.state !== 'sent') continue;
    try {
      // Settling is the push's own lane: it is the end of a push a crash interrupted.
      const verdict = await inLane('push', () => check(deps, item, writeMeta));
      if (verdict.happened === 'waiting') {
        unresolved.add(verdict.documentId);
        log.warn({ push: item.kind, key: item.idempotencyKey }, verdict.why);
        continue;
      }
      if (verdict.happened)
        await commitAgreed(deps, lease, pushCompleted(item.id, verdict.completion), {
          owner: item.owner,
          documentId: item.documentId,
          what: `${item.kind} settled`,
        });
      else deps.state.outbox.dropUnsent(item.id, deps.now());
      log.info(
        {
          push: item.kind,
          key: item.idempotencyKey,
          happened: verdict.happened,
        },
        'settled a push left in doubt',
      );
    } catch (error) {
      if (isStateFailure(error)) throw error;
      if (item.documentId) unresolved.add(item.documentId);
      // A create the service answered: its document must not be pulled as new meanwhile.
      // Read again: the check may have noted the created document's id before it failed.
      const now = deps.state.outbox.get(item.id);
      if (now?.kind === 'create-document' && now.payload.createdId)
        unresolved.add(now.payload.createdId);
      // A stop is no news about the push: it stays in doubt for the next run, quietly.
      if (!(error instanceof RunStoppedError))
        log.warn({ err: error, push: item.kind, key: item.idempotencyKey }, 'push still in doubt');
    }
  }
  return unresolved;
}

async function details(deps: EngineDeps, item: OutboxItem): Promise<RemoteDocument | null> {
  try {
    return await deps.remote.document(item.owner, item.documentId!);
  } catch (error) {
    if (isGone(error)) return null;
    throw error;
  }
}

async function check(
  deps: EngineDeps,
  item: OutboxItem,
  writeMeta: SettleMetaWrite,
): Promise<Verdict> {
  if (item.kind === 'create-document') return checkCreate(deps, item, writeMeta);
  const documentId = item.documentId!;
  const doc = await details(deps, item);
  if (item.kind === 'delete-document') {
    if (doc !== null) return notYet;
    const deletedInService = { owner: item.owner, documentId, folder: item.payload.folder };
    return { happened: true, completion: { removeBaseId: documentId, deletedInService } };
  }
  const base = deps.state.base.get(documentId);
  if (doc === null || base === null) return notYet;
  // `conflictOf`: a conflict the push settles, recorded in the commit that completes it.
  const done = (
    result: ActionResult,
    conflictOf?: (next: BaseDocument) => NewConflict | undefined,
  ): Verdict => {
    const next = applyActionResult(base, actionOfPush(item, base), result);
    if (!next) return { happened: true, completion: {} };
    const conflict = conflictOf?.(next);
    return { happened: true, completion: { base: next, ...(conflict ? { conflict } : {}) } };
  };
  switch (item.kind) {
    case 'delete-attachment': {
      const gone = !doc.attachments.some((a) => a.id === item.payload.attachmentId);
      return gone ? done({ kind: 'done' }) : notYet;
    }
    case 'assign-status': {
      const { status } = doc;
      const { typeId, effectiveDate, conflict } = item.payload;
      if (status?.typeId !== typeId || status.effectiveDate !== effectiveDate) return notYet;
      // Carried out, so the status it won over is replaced: its conflict is recorded with it.
      return done(
        { kind: 'status-created', status },
        (next) => conflict && pushedStatusConflict(item.owner, next, conflict, deps.now()),
      );
    }
    case 'upload-attachment': {
      const uploaded = await ourUpload(deps, doc, base, item.payload);
      if (!uploaded) return notYet;
      // The file may have been renamed since: the attachment is the file under its name now.
      const { fileName, fileIdentity } = item.payload;
      const now = await fileNameNow(deps, base.folder, fileName, fileIdentity);
      const followed = { ...item, payload: { ...item.payload, fileName: now } };
      const next = applyActionResult(base, actionOfPush(followed, base), {
        kind: 'attachment-created',
        attachment: uploaded,
      });
      if (!next) return { happened: true, completion: {} };
      // Carried out over a service user's removal (row 33): its conflict is recorded with it.
      const { conflict } = item.payload;
      const recorded =
        conflict && pushedConflict(item.owner, base.id, base.folder, conflict, deps.now());
      return {
        happened: true,
        completion: { base: next, ...(recorded ? { conflict: recorded } : {}) },
      };
    }
    case 'replace-attachment': {
      // The upload is done when the entry says so, or when the service shows it; then the
      // second step is finished here, so both versions never stay.
      const uploaded =
        item.payload.uploaded ??
        (await ourUpload(deps, doc, base, item.payload, item.payload.replacesAttachmentId));

      if (!uploaded) return notYet;
      const next = await finishReplace(deps, base, {
        ...item.payload,
        uploaded,
      });
      return {
        happened: true,
        completion: { base: next, result: { id: uploaded.id } },
      };
    }
    default:
      return assertNever(item);
  }
}

/**
 * The attachment this push made, if the service has it: a user attachment the base does not know
 * yet (nor is the one being replaced), holding the file's bytes. The bytes are compared, not
 * only the name: a colleague may have put a file of that name there meanwhile, and taking it for
 * ours would leave the two sides silently apart. Those of the file's name are looked at first,
 * then the others: a service may store an upload under a name of its own (stored-name.ts), and a
 * push in doubt has no answer to say which; passed over, it would be sent again, a second copy.
 */
async function ourUpload(
  deps: EngineDeps,
  doc: RemoteDocument,
  base: BaseDocument,
  file: { readonly fileName: string; readonly sha256: string },
  replacing?: string,
): Promise<RemoteAttachment | undefined> {
  const agreed = new Set(base.attachments.map((a) => a.id));
  const fresh = doc.attachments.filter(
    (a) => a.kind === 'user' && !agreed.has(a.id) && a.id !== replacing,
  );
  const named = (a: RemoteAttachment) => a.name === file.fileName;
  for (const candidate of [...fresh.filter(named), ...fresh.filter((a) => !named(a))]) {
    const sha256 = await attachmentSha256(deps, doc.owner, doc.id, candidate.id);
    if (sha256 === file.sha256) return candidate;
  }
  return undefined;
}

type CreateItem = Extract<OutboxItem, { kind: 'create-document' }>;

/**
 * The name and date of each create of this owner still in doubt that names no document yet (its
 * check could not read the service). A document of the service with one of these, that nothing
 * agreed, may be the one the create made: pulled as new, it would be agreed before the check
 * runs again, which looks only among documents nothing agreed, so it would close the create as
 * never sent and the folder would make a second document. Such a document is left alone until
 * the create is settled.
 */
export function unnamedCreatesInDoubt(deps: EngineDeps, owner: OwnerRef): Set<string> {
  const key = ownerKey(owner);
  return new Set(
    deps.state.outbox
      .inDoubt()
      .flatMap((i) =>
        i.kind === 'create-document' && !i.payload.createdId && ownerKey(i.owner) === key
          ? [nameAndDate(i.payload)]
          : [],
      ),
  );
}

export const nameAndDate = (doc: { name: string; documentDate: string }) =>
  JSON.stringify([doc.name, doc.documentDate]);

/**
 * A create happened if the service answered it (its id noted on the push), or else if the owner
 * has a document of that name and date, new since the push. Its `.document.json` then goes into
 * the folder it was made from, found by its identity on disk wherever a person moved it within
 * the entity folder (follow-identity.ts); while it is in none, the create waits, recorded.
 */
async function checkCreate(
  deps: EngineDeps,
  item: CreateItem,
  writeMeta: SettleMetaWrite,
): Promise<Verdict> {
  const { folder, replaces, createdId, made } = item.payload;
  const doc = createdId
    ? await createdDocument(deps, item, createdId)
    : await sameNamed(deps, item);
  if (doc === null) return createdId ? createdAndGone(deps, item, createdId) : notYet;
  // Found by name: noted at once, so a failure while linking its folder still keeps it from
  // being pulled as new, and the next check finds it by its id even once something agreed it.
  if (!createdId)
    deps.state.outbox.markStep(item.id, 'create-document', { ...item.payload, createdId: doc.id });
  const identity = item.payload.folderIdentity ?? null;
  // Agreed as it was made when its answer came: a status a service user or a person set since
  // is a change of their side for the next plan (rows 23, 24), not the agreed state.
  const asMade = made ? { ...doc, ...made } : doc;
  const created = { kind: 'document-created', document: asMade, files: new Map() } as const;
  const baseIn = (at: string) =>
    applyActionResult(
      null,
      actionOfPush({ ...item, payload: { ...item.payload, folder: at } }, null),
      created,
    )!;
  const entityFolder = deps.state.entities.get(item.owner)?.folder;
  const parents = [path.posix.dirname(folder), ...(entityFolder ? [entityFolder] : [])];
  const linked = await linkCreatedFolder(deps, folder, identity, parents, async (at, sameAs) => {
    // Named before the crash: what its `.document.json` holds now may be a person's since.
    if ((await deps.local.readDocumentMeta(at)).meta?.id === doc.id) return;
    await writeMeta(at, baseIn(at), asMade, sameAs);
  });
  if (linked === null) {
    return {
      happened: 'waiting',
      documentId: doc.id,
      why: new CreatedFolderMissingError(doc.id, folder).message,
    };
  }
  const removeBaseId = replaces && replaces !== doc.id ? { removeBaseId: replaces } : {};
  // Made again over a service user's delete (row 12): its conflict is recorded with it.
  const { conflict } = item.payload;
  const recorded = conflict && pushedConflict(item.owner, doc.id, linked, conflict, deps.now());
  return {
    happened: true,
    completion: {
      documentId: doc.id,
      base: baseIn(linked),
      ...removeBaseId,
      ...(recorded ? { conflict: recorded } : {}),
      result: { id: doc.id },
    },
  };
}

/**
 * The service answered the create, and has deleted that document since. A folder that already
 * names it (the crash came between its `.document.json` and the commit) is the person's document,
 * which nothing else knows now: closed as a document gone from the service (row 19), with the row
 * it replaced, it is created again from the folder as it stands. Closed as never made, it would
 * name a document nobody has (row 6), with every file in it unsynced for ever. A folder that does
 * not name it yet is still the document it replaces, planned again from there.
 */
async function createdAndGone(
  deps: EngineDeps,
  item: CreateItem,
  createdId: string,
): Promise<Verdict> {
  const { found } = await deps.local.locateDocuments(new Set([createdId]));
  const folder = found.get(createdId);
  if (folder === undefined) return notYet;
  const { replaces, conflict } = item.payload;
  // Made over a service user's delete (row 12), it was made: that conflict happened too.
  const recorded = conflict && pushedConflict(item.owner, createdId, folder, conflict, deps.now());
  return {
    happened: true,
    completion: {
      result: { id: createdId },
      ...(replaces && replaces !== createdId ? { removeBaseId: replaces } : {}),
      deletedInService: { owner: item.owner, documentId: createdId, folder },
      ...(recorded ? { conflict: recorded } : {}),
    },
  };
}

/** The document the service answered the create with; null when it has been deleted since. */
async function createdDocument(
  deps: EngineDeps,
  item: CreateItem,
  id: string,
): Promise<RemoteDocument | null> {
  try {
    return await deps.remote.document(item.owner, id);
  } catch (error) {
    if (isGone(error)) return null;
    throw error;
  }
}

/** A document of the create's name and date, new since the push, that no folder has yet. */
async function sameNamed(deps: EngineDeps, item: CreateItem): Promise<RemoteDocument | null> {
  const { name, documentDate } = item.payload;
  const agreed = deps.state.base.listByOwner(item.owner);
  const since = (item.sentAt ?? item.createdAt) - 60_000;
  for await (const entry of deps.remote.documents(item.owner)) {
    if ('malformed' in entry || agreed.has(entry.id)) continue;
    if (entry.name !== name || entry.documentDate !== documentDate) continue;
    // A list without change times cannot rule out an older one: its details say.
    const listedAt = entry.lastUpdatedTimestamp ?? undefined;
    if (listedAt !== undefined && serviceTimeToLocalMs(listedAt, deps.clockOffsetMs()) < since)
      continue;
    const doc = await deps.remote.document(item.owner, entry.id, { listedAt });
    if (
      listedAt === undefined &&
      serviceTimeToLocalMs(doc.lastUpdatedTimestamp, deps.clockOffsetMs()) < since
    )
      continue;
    return doc;
  }
  return null;
}
