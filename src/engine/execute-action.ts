/**
 * Carries out one planned action and commits the document's new base with it: local writes
 * first, then the base (a crash in between is recognised next cycle as "both sides agree");
 * pushes through the outbox, whose completion writes the base in the same transaction.
 */
import path from 'node:path';
import {
  type ActionResult,
  applyActionResult,
  baseFromDocument,
} from '../domain/apply-action-result.js';
import { assertNever } from '../domain/assert-never.js';
import {
  CreatedFolderMissingError,
  LocalChangedError,
  PushRejectedError,
  PutBackError,
} from '../domain/errors.js';
import type { SyncAction } from '../domain/sync-actions.js';
import type {
  BaseDocument,
  DocumentMeta,
  LocalFile,
  OwnerRef,
  RemoteDocument,
} from '../domain/types.js';
import type { PlacedFile } from '../local/local-store.js';
import type { NewConflict } from '../state/conflict-repo.js';
import { commitAgreed, documentAgreed } from './commit-agreed.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityLease } from './entity-locks.js';
import { fileNameNow, identityForPush, linkCreatedFolder } from './follow-identity.js';
import type { LocalWrites, WriteMetaOptions } from './local-writes.js';
import { closeSupersededPushes, isGone, push, sentFile } from './push.js';
import { pushReplace } from './push-replace.js';
import {
  keptConflictRecord,
  type PushConflict,
  pulledConflict,
  pushConflictOf,
  pushedConflict,
  pushedStatusConflict,
  recordConflict,
  statusPushConflict,
} from './record-conflict.js';
import { checkStillAsCopied, saveAttachmentCopy, saveDocumentCopy } from './save-service-copy.js';
import { checkStatusStillAgreed } from './status-still-agreed.js';
import { checkFileStillRemoved, checkFolderStillRemoved } from './still-removed.js';
import { noteStoredName } from './stored-name.js';

export interface ActionContext {
  readonly deps: EngineDeps;
  readonly owner: OwnerRef;
  /** The entity's lease, held by the cycle (cycle-leases.ts): each commit is made under it. */
  readonly lease: EntityLease;
  /** The company's or trust's name, which log lines start with. */
  readonly entityName: string;
  readonly entityFolder: string;
  readonly link: string;
  /** `.document.json` for `base` (and the document's extra fields, from `doc` when given). */
  readonly metaFor: (base: BaseDocument, doc?: RemoteDocument | null) => DocumentMeta;
  /**
   * The service refused one file (a 4xx such as 413): it is reported under its path, and the
   * document's other changes go on.
   */
  readonly refused: (relPath: string, error: PushRejectedError) => void;
  /**
   * The entity's writes over what is in the folder, each checked against what the scan saw
   * (local-writes.ts).
   */
  readonly local: LocalWrites;
  /**
   * Writes `.document.json` of `folder` for `base` (and the document's extra fields), through
   * `local`: a status the person typed and this sync did not settle is kept.
   */
  readonly writeMeta: (
    folder: string,
    base: BaseDocument,
    doc?: RemoteDocument | null,
    options?: WriteMetaOptions,
  ) => Promise<void>;
}

type Act<K extends SyncAction['kind']> = (
  ctx: ActionContext,
  action: Extract<SyncAction, { kind: K }>,
  base: BaseDocument | null,
) => Promise<BaseDocument | null>;

/**
 * The action's result folded into the base and committed, with `conflict` when the action's
 * conflict must go in the same transaction; null removes the row.
 */
function fold(
  ctx: ActionContext,
  action: SyncAction,
  base: BaseDocument | null,
  result: ActionResult,
  conflict?: NewConflict,
): BaseDocument | null | Promise<BaseDocument | null> {
  const next = applyActionResult(base, action, result);
  const site = { owner: ctx.owner, documentId: action.documentId, what: action.kind };
  const change = documentAgreed(action.documentId, next);
  // Without a failpoint hook the commit is synchronous: no promise per action.
  const committing = commitAgreed(
    ctx.deps,
    ctx.lease,
    next && conflict ? { ...change, conflict } : change,
    site,
  );
  return committing ? committing.then(() => next) : next;
}

/**
 * The simulation's stop before a file is added to the folder (failpoints.ts); the writes over
 * what is there stop in local-writes.ts. Nothing in the daemon.
 */
async function beforeLocalWrite(ctx: ActionContext, documentId: string, what: string) {
  if (ctx.deps.failpoint)
    await ctx.deps.failpoint('before-local-write', { owner: ctx.owner, documentId, what });
}

async function download(
  ctx: ActionContext,
  documentId: string,
  attachmentId: string,
  folder: string,
  file: string,
) {
  await beforeLocalWrite(ctx, documentId, `place ${file}`);
  return ctx.deps.local.placeFile(folder, file, {
    fill: (temp: string) =>
      ctx.deps.remote.downloadAttachment(ctx.owner, documentId, attachmentId, temp),
  });
}

const pullNewDocument: Act<'pull-new-document' | 'restore-document'> = async (
  ctx,
  action,
  base,
) => {
  if (action.kind === 'restore-document' && action.side === 'remote')
    return pushNewDocument(ctx, action, base);
  const doc = action.document;
  const given = 'folder' in action ? action.folder : null;
  if (given === null) {
    // A new folder is built whole, files and final `.document.json` inside, and appears in one
    // rename: no half-pulled document is ever visible, and half the flushes.
    await beforeLocalWrite(ctx, doc.id, 'new document folder');
    // Recorded before its folder appears, so a crash before the commit leaves a folder docsync
    // knows it made (settle-pulls.ts): a document the base does not know yet, or one whose
    // folder a person deleted, with the conflict that says why it is back (row 9).
    const kept = pulledConflict(action);
    ctx.deps.state.pullsInDoubt.add(doc, ctx.deps.now(), kept);
    const restoring = action.kind === 'restore-document' ? base : null;
    const created = await ctx.deps.local
      .createDocumentFolderWithFiles(
        ctx.entityFolder,
        doc,
        action.files.map((planned) => ({
          key: planned.attachment.id,
          desiredName: planned.file,
          fill: (path: string) =>
            ctx.deps.remote.downloadAttachment(ctx.owner, doc.id, planned.attachment.id, path),
        })),
        (written) => ctx.metaFor(baseFromDocument(doc, '', written), doc),
        // The folder a download again replaces may have come back since the plan (a person put
        // it back from their bin), up to the rename: then it is the document's folder, synced as
        // it stands, and no second one is placed beside it. Looked for after the downloads, which
        // may take long.
        restoring
          ? () => checkFolderStillRemoved(ctx, doc.id, restoring.folder, 'restore')
          : undefined,
      )
      .catch((error: unknown) => {
        // The person's folder is back, and nothing was placed: no pull is left in doubt.
        if (error instanceof PutBackError) ctx.deps.state.pullsInDoubt.forget(doc.id);
        throw error;
      });
    const conflict = kept
      ? keptConflictRecord(ctx.owner, doc.id, created.folder, kept, ctx.deps.now())
      : undefined;
    return fold(ctx, action, base, { kind: 'files-written', ...created }, conflict);
  }
  const folder = given;
  const files = new Map<string, LocalFile>();
  for (const planned of action.files) {
    files.set(
      planned.attachment.id,
      await download(ctx, doc.id, planned.attachment.id, folder, planned.file),
    );
  }
  return fold(ctx, action, base, { kind: 'files-written', folder, files });
};

const pullAttachment: Act<'pull-attachment'> = async (ctx, action, base) => {
  const placed = await download(
    ctx,
    action.documentId!,
    action.attachment.id,
    action.folder,
    action.file,
  );
  recordConflict(ctx, action, {
    folder: action.folder,
    documentId: action.documentId!,
    keptAs: placed.name,
  });
  return fold(ctx, action, base, {
    kind: 'files-written',
    files: new Map([[action.attachment.id, placed]]),
  });
};

/** Creates the document in the service, links the folder to it, then uploads its files. */
async function pushNewDocument(
  ctx: ActionContext,
  action: Extract<
    SyncAction,
    { kind: 'push-new-document' } | { kind: 'restore-document'; side: 'remote' }
  >,
  base: BaseDocument | null,
): Promise<BaseDocument | null> {
  const { deps, owner } = ctx;
  const statusTypeId = action.kind === 'restore-document' ? action.statusTypeId : null;
  // The id the new document takes the place of: the base's, or that of a document docsync
  // deleted in the service whose folder was put back (row 19), whose record goes with it.
  const replaces = base?.id ?? (action.kind === 'restore-document' ? action.documentId : null);
  // Made again over a service user's delete (row 12): the conflict goes in the create's commit.
  const kept = pushConflictOf(action);
  // The new document's agreed state in `folder`, before any file is up: files follow one upload
  // each.
  const agreed = (document: RemoteDocument, folder: string) =>
    applyActionResult(
      base,
      { ...action, folder },
      { kind: 'document-created', document, files: new Map() },
    )!;
  // The push follows the folder by this (follow-identity.ts): renamed while the service works,
  // it is still this create, and its `.document.json` goes where the folder is then.
  const identity = await identityForPush(deps, action.folder);
  const payload = {
    name: action.name,
    documentDate: action.documentDate,
    folder: action.folder,
    ...(identity ? { folderIdentity: identity } : {}),
    // A restore replaces this base row; an in-doubt settlement must drop it too.
    ...(replaces ? { replaces } : {}),
    ...(kept ? { conflict: kept } : {}),
  };
  let folder = action.folder;
  const created = await push(deps, {
    lease: ctx.lease,
    kind: 'create-document',
    owner,
    documentId: null,
    payload,
    send: () =>
      deps.remote.createDocument(owner, {
        name: action.name,
        documentDate: action.documentDate,
        ...(statusTypeId ? { statusTypeId } : {}),
      }),
    // The folder names its document before the create counts as done: otherwise a crash here
    // would leave a base whose folder has no id, which the next plan would read as deleted.
    // The answer is noted first, so a crash or a folder not found settles it by id.
    settle: async (doc, pushId) => {
      deps.state.outbox.markStep(pushId, 'create-document', {
        ...payload,
        createdId: doc.id,
        made: { lastUpdatedTimestamp: doc.lastUpdatedTimestamp, status: doc.status },
      });
      const linked = await linkCreatedFolder(
        deps,
        action.folder,
        identity,
        [ctx.entityFolder],
        (f, sameAs) => ctx.writeMeta(f, agreed(doc, f), doc, { folderIdentity: sameAs }),
      );
      if (linked === null) throw new CreatedFolderMissingError(doc.id, action.folder);
      folder = linked;
    },
    complete: (doc) => ({
      documentId: doc.id,
      base: agreed(doc, folder),
      // Restoring a deleted document gives it a new id: the old base row goes in the same
      // commit, so no crash can leave a row pointing at this folder under the old id.
      ...(replaces && replaces !== doc.id ? { removeBaseId: replaces } : {}),
      ...(kept ? { conflict: pushedConflict(owner, doc.id, folder, kept, deps.now()) } : {}),
      result: { id: doc.id },
    }),
  });
  let next = agreed(created, folder);
  for (const file of action.files) {
    try {
      next = (await uploadFile(ctx, next, folder, file)) ?? next;
    } catch (error) {
      // One file the service refuses must not hold back the others of the new document.
      if (!(error instanceof PushRejectedError)) throw error;
      ctx.refused(`${folder}/${file.name}`, error);
    }
  }
  return next;
}

/** `conflict`: the one it settles over a service user's removal (row 33), kept with the push. */
async function uploadFile(
  ctx: ActionContext,
  base: BaseDocument,
  folder: string,
  file: LocalFile,
  conflict?: PushConflict,
) {
  const { deps, owner } = ctx;
  const source = deps.local.uploadSource(`${folder}/${file.name}`, file);
  // The upload follows the file by this: renamed while it goes up, the file under its new name
  // is the attachment made, not a new file to upload next time.
  const identity = await identityForPush(deps, `${folder}/${file.name}`);
  let name = file.name;
  let next: BaseDocument | null = base;
  await push(deps, {
    lease: ctx.lease,
    kind: 'upload-attachment',
    owner,
    documentId: base.id,
    payload: {
      fileName: file.name,
      sha256: file.sha256,
      size: file.size,
      mtimeMs: file.mtimeMs,
      ...(identity ? { fileIdentity: identity } : {}),
      ...(conflict ? { conflict } : {}),
    },
    send: async () => {
      const attachment = await deps.remote.uploadAttachment(owner, base.id, source, file.name);
      return { attachment, sent: sentFile(source) };
    },
    settle: async () => {
      name = await fileNameNow(deps, folder, file.name, identity);
    },
    complete: ({ attachment, sent }) => {
      noteStoredName(deps.logger, { folder, documentId: base.id }, file.name, attachment);
      // The agreed file is the one sent, which the scan's hash may not describe, under the name
      // it has now.
      const uploadAction = {
        kind: 'push-attachment',
        row: 40,
        owner,
        documentId: base.id,
        documentName: base.name,
        folder,
        file: { ...sent, name },
      } as const;
      next = applyActionResult(base, uploadAction, { kind: 'attachment-created', attachment });
      if (!next) return {};
      const recorded = conflict && pushedConflict(owner, base.id, folder, conflict, deps.now());
      return {
        base: next,
        result: { id: attachment.id },
        ...(recorded ? { conflict: recorded } : {}),
      };
    },
  });
  closeSupersededPushes(deps, base.id, file.name);
  return next;
}

const pushAttachment: Act<'push-attachment'> = async (ctx, action, base) =>
  base && uploadFile(ctx, base, action.folder, action.file, pushConflictOf(action));

const pushReplacedAttachment: Act<'push-replaced-attachment'> = async (ctx, action, base) =>
  base &&
  pushReplace(ctx.deps, ctx.lease, base, action.folder, action.file, action.replacesAttachmentId);

const deleteAttachment: Act<'push-delete-attachment'> = async (ctx, action, base) => {
  const { deps, owner } = ctx;
  if (!base) return base;
  const next = applyActionResult(base, action, { kind: 'done' });
  await saveAttachmentCopy(deps, base, action.attachmentId);
  // The last look at the folder, after the copy that may take long: a file put back cancels.
  await checkFileStillRemoved(ctx, base.id, action.folder, action.file);
  await push(deps, {
    lease: ctx.lease,
    kind: 'delete-attachment',
    owner,
    documentId: base.id,
    payload: { attachmentId: action.attachmentId },
    send: () =>
      deps.remote.deleteAttachment(owner, base.id, action.attachmentId).catch((e) => {
        if (!isGone(e)) throw e;
      }),
    complete: () => (next ? { base: next } : {}),
  });
  return next;
};

const pushStatus: Act<'push-status'> = async (ctx, action, base) => {
  const { deps, owner } = ctx;
  if (!base) return base;
  await checkStatusStillAgreed(ctx, base.id, action.replacesStatusId ?? base.statusId);
  let next: BaseDocument | null = base;
  const conflict = statusPushConflict(action);
  await push(deps, {
    lease: ctx.lease,
    kind: 'assign-status',
    owner,
    documentId: base.id,
    payload: {
      typeId: action.statusTypeId,
      effectiveDate: action.effectiveDate,
      ...(conflict ? { conflict } : {}),
    },
    send: () => deps.remote.assignStatus(owner, base.id, action.statusTypeId, action.effectiveDate),
    complete: (status) => {
      next = applyActionResult(base, action, { kind: 'status-created', status });
      if (!next) return {};
      const recorded = conflict && pushedStatusConflict(owner, next, conflict, deps.now());
      return { base: next, result: { id: status.id }, ...(recorded ? { conflict: recorded } : {}) };
    },
  });
  return next;
};

const pushDeleteDocument: Act<'push-delete-document'> = async (ctx, action, base) => {
  const { deps, owner } = ctx;
  const id = action.documentId!;
  // Modify beats delete, also when the service's change came after the plan: the copy is of
  // the service's view now, and that view is looked at again just before the delete.
  const copied = await saveDocumentCopy(ctx, id, action.folder);
  if (deps.failpoint)
    await deps.failpoint('service-copy-saved', { owner, documentId: id, what: 'delete-document' });
  await checkStillAsCopied(ctx, id, copied);
  // And the folder's side, last: putting the folder back up to this instant cancels the delete.
  await checkFolderStillRemoved(ctx, id, action.folder);
  await push(deps, {
    lease: ctx.lease,
    kind: 'delete-document',
    owner,
    documentId: id,
    payload: { folder: action.folder },
    send: () =>
      deps.remote.deleteDocument(owner, id).catch((e) => {
        if (!isGone(e)) throw e;
      }),
    complete: () => ({
      removeBaseId: id,
      deletedInService: { owner, documentId: id, folder: action.folder },
    }),
  });
  return base && null;
};

const trashLocalAttachment: Act<'trash-local-attachment'> = async (ctx, action, base) => {
  // Gone from where the plan saw it: deleted by the person too, or renamed, or its folder
  // renamed (then it is still there, and dropping the attachment from the base would send it
  // up again as a new file, undoing the service user's removal). Only a new scan tells which.
  if (!(await ctx.local.trash(action.folder, action.file)))
    throw new LocalChangedError(`${action.folder}/${action.file}`);
  return fold(ctx, action, base, { kind: 'done' });
};

const trashLocalDocument: Act<'trash-local-document'> = async (ctx, action, base) => {
  // Gone from where the plan saw it: deleted (row 10 forgets it), or renamed or moved away with
  // its entity (row 11 or 50 find it). Only a new scan tells which; dropping the row here would
  // leave a folder that comes back naming a document nobody knows (row 6).
  if (!(await ctx.local.trash(action.folder, null, action.mode)))
    throw new LocalChangedError(action.folder);
  return fold(ctx, action, base, { kind: 'done' });
};

const keepConflictCopy: Act<'keep-conflict-copy'> = async (ctx, action, base) => {
  const copy = await ctx.local.renameFile(action.folder, action.file, action.copyName);
  recordConflict(ctx, action, {
    folder: action.folder,
    documentId: action.documentId ?? '',
    keptAs: path.posix.basename(copy),
  });
  return fold(ctx, action, base, { kind: 'done' });
};

const restoreSystemAttachment: Act<'restore-system-attachment'> = async (ctx, action, base) => {
  const original = {
    fill: (temp: string) =>
      ctx.deps.remote.downloadAttachment(ctx.owner, action.documentId!, action.attachmentId, temp),
  };
  const restored = await ctx.local.restoreSystemFile(action.folder, action.file, original);
  const files = new Map<string, PlacedFile>([[action.attachmentId, restored.file]]);
  return fold(ctx, action, base, { kind: 'files-written', files });
};

/** Actions whose whole effect is on the base (the meta file is rewritten after the document). */
const bookkeeping: Act<
  | 'pull-status'
  | 'pull-details'
  | 'move-base-folder'
  | 'adopt-local-folder'
  | 'forget-document'
  | 'update-base'
> = async (ctx, action, base) => fold(ctx, action, base, { kind: 'done' });

/**
 * Runs `action`, commits, and returns the document's base after it. `write-document-meta` and
 * `record-problem` concern the document as a whole: the caller handles them, and here they change
 * nothing. The switch is exhaustive: a new kind does not compile until it has its case.
 */
export function executeAction(
  ctx: ActionContext,
  action: SyncAction,
  base: BaseDocument | null,
): Promise<BaseDocument | null> {
  switch (action.kind) {
    case 'pull-new-document':
    case 'restore-document':
      return pullNewDocument(ctx, action, base);
    case 'pull-attachment':
      return pullAttachment(ctx, action, base);
    case 'push-new-document':
      return pushNewDocument(ctx, action, base);
    case 'push-attachment':
      return pushAttachment(ctx, action, base);
    case 'push-replaced-attachment':
      return pushReplacedAttachment(ctx, action, base);
    case 'push-delete-attachment':
      return deleteAttachment(ctx, action, base);
    case 'push-status':
      return pushStatus(ctx, action, base);
    case 'push-delete-document':
      return pushDeleteDocument(ctx, action, base);
    case 'trash-local-attachment':
      return trashLocalAttachment(ctx, action, base);
    case 'trash-local-document':
      return trashLocalDocument(ctx, action, base);
    case 'keep-conflict-copy':
      return keepConflictCopy(ctx, action, base);
    case 'restore-system-attachment':
      return restoreSystemAttachment(ctx, action, base);
    case 'pull-status':
    case 'pull-details':
    case 'move-base-folder':
    case 'adopt-local-folder':
    case 'forget-document':
    case 'update-base':
      return bookkeeping(ctx, action, base);
    case 'write-document-meta':
    case 'record-problem':
      return Promise.resolve(base);
    default:
      return assertNever(action);
  }
}
