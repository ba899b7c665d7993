/**
 * Settles pushes a crash left in doubt (sent, outcome unknown) by reading the service, before a
 * cycle plans anything (docs/state.md): what happened is completed with its base, what did not
 * is requeued so the plan sends it again. This is what lets a crash at any instant neither lose
 * a change nor create a duplicate.
 */
import { baseFromDocument } from '../domain/apply-action-result.js';
import { serviceTimeToLocalMs } from '../domain/timestamps.js';
import type { BaseDocument, RemoteDocument } from '../domain/types.js';
import type { Logger } from '../log/create-logger.js';
import type { OutboxItem } from '../state/outbox-repo.js';
import type { PushCompletion } from '../state/state-store.js';
import type { EngineDeps } from './engine-deps.js';
import { isGone } from './push.js';

type Verdict =
  | { readonly happened: true; readonly completion: PushCompletion }
  | { readonly happened: false };
const notYet: Verdict = { happened: false };

/** Returns how many pushes are still in doubt (the service could not be asked). */
export async function resolveInDoubt(
  deps: EngineDeps,
  log: Logger,
  writeMeta: (folder: string, base: BaseDocument, doc: RemoteDocument) => Promise<void>,
): Promise<number> {
  let unresolved = 0;
  for (const item of deps.state.outbox.inDoubt()) {
    try {
      const verdict = await check(deps, item, writeMeta);
      if (verdict.happened) deps.state.completePush(item.id, verdict.completion, deps.now());
      else deps.state.outbox.requeue(item.id, deps.now());
      log.info(
        { push: item.kind, key: item.idempotencyKey, happened: verdict.happened },
        'settled a push left in doubt',
      );
    } catch (error) {
      unresolved++;
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
  writeMeta: (folder: string, base: BaseDocument, doc: RemoteDocument) => Promise<void>,
): Promise<Verdict> {
  const payload = item.payload as Record<string, string | number>;
  if (item.kind === 'create-document') return checkCreate(deps, item, writeMeta);
  const doc = await details(deps, item);
  const base = deps.state.base.get(item.documentId!);
  if (item.kind === 'delete-document') {
    return doc === null
      ? { happened: true, completion: { removeBaseId: item.documentId! } }
      : notYet;
  }
  if (doc === null || base === null) return notYet;
  if (item.kind === 'delete-attachment') {
    const gone = !doc.attachments.some((a) => a.id === payload.attachmentId);
    const next = {
      ...base,
      attachments: base.attachments.filter((a) => a.id !== payload.attachmentId),
    };
    return gone ? { happened: true, completion: { base: next } } : notYet;
  }
  if (item.kind === 'assign-status') {
    const status = doc.status;
    if (status?.typeId !== String(payload.typeId) || status.effectiveDate !== payload.effectiveDate)
      return notYet;
    const next = {
      ...base,
      statusId: status.id,
      statusTypeId: status.typeId,
      statusDate: status.effectiveDate,
    };
    return { happened: true, completion: { base: next } };
  }
  // upload-attachment: an attachment of that name the base does not know yet.
  const agreed = new Set(base.attachments.map((a) => a.id));
  const uploaded = doc.attachments.find((a) => a.name === payload.fileName && !agreed.has(a.id));
  if (!uploaded) return notYet;
  const entry = {
    id: uploaded.id,
    kind: uploaded.kind,
    file: String(payload.fileName),
    sha256: String(payload.sha256),
    size: Number(payload.size),
    mtimeMs: Number(payload.mtimeMs),
  };
  const next = {
    ...base,
    attachments: [...base.attachments.filter((a) => a.file !== entry.file), entry],
  };
  return { happened: true, completion: { base: next } };
}

/** A create happened if the owner has a document of that name and date, new since the push. */
async function checkCreate(
  deps: EngineDeps,
  item: OutboxItem,
  writeMeta: (folder: string, base: BaseDocument, doc: RemoteDocument) => Promise<void>,
): Promise<Verdict> {
  const { name, documentDate, folder, replaces } = item.payload as {
    name: string;
    documentDate: string;
    folder: string;
    replaces?: string;
  };
  const agreed = deps.state.base.listByOwner(item.owner);
  const since = (item.sentAt ?? item.createdAt) - 60_000;
  for await (const entry of deps.remote.documents(item.owner)) {
    if ('malformed' in entry || agreed.has(entry.id)) continue;
    if (entry.name !== name || entry.documentDate !== documentDate) continue;
    if (serviceTimeToLocalMs(entry.lastUpdatedTimestamp, deps.clockOffsetMs()) < since) continue;
    const doc = await deps.remote.document(item.owner, entry.id);
    const base = baseFromDocument(doc, folder, new Map());
    await writeMeta(folder, base, doc);
    const removeBaseId = replaces && replaces !== doc.id ? { removeBaseId: replaces } : {};
    return {
      happened: true,
      completion: { documentId: doc.id, base, ...removeBaseId, result: { id: doc.id } },
    };
  }
  return notYet;
}
