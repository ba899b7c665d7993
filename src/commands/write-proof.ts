/**
 * The steps of `docsync check --write`: every route that writes a document, proven on one
 * entity, in the order a document lives. The entity's list (which finds the document routes'
 * prefix on first contact, as a run would), a test document created, a file uploaded, its link
 * asked for and its bytes downloaded and compared, a status assigned, the document read back,
 * the file deleted and then the document, each after its copy went to the trash as the sync
 * keeps one, and a last read that must answer 404. Each step is a line with the route as called
 * and what it answered (the step's own request's, not a follow-up's); a step whose input failed
 * is not tried.
 *
 * The test document is recorded in the state before its create is sent and forgotten once it is
 * deleted (domain/write-proofs.ts): one a failure or a crash leaves behind is named, never
 * pulled into the firm's folder, and removed by the next `check --write` or run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { baseFromDocument } from '../domain/apply-action-result.js';
import { type CheckLine, fail } from '../domain/check-lines.js';
import { entityDeepLink } from '../domain/deep-links.js';
import { DocsyncError } from '../domain/errors.js';
import type { Entity, LocalFile, OwnerRef, RemoteDocument, StatusType } from '../domain/types.js';
import { entityLabel } from '../domain/words.js';
import { PROOF_FILE_NAME, proofDocumentName } from '../domain/write-proofs.js';
import { extrasOf, metaFromBase } from '../engine/document-meta.js';
import type { LocalStore } from '../local/local-store.js';
import { namedUploadSource } from '../local/upload-file.js';
import { ApiError } from '../remote/api-error.js';
import type { ServiceClient } from '../remote/service-client.js';
import type { WriteProofRepo } from '../state/write-proof-repo.js';
import { type StepDeps, Steps } from './write-proof-steps.js';

export interface WriteProofDeps extends StepDeps {
  readonly client: ServiceClient;
  /** Where the copies of what the proof deletes are kept (check-write.ts chooses). */
  readonly local: LocalStore;
  /** The trash of `local`, as a line names it. */
  readonly trashName: string;
  readonly webUrl: string;
  /** The entity's folder relative to the root, when docsync has one (the copy is kept under it). */
  readonly entityFolder: string | null;
  /** Where the test document is recorded until it is deleted. */
  readonly proofs: Pick<WriteProofRepo, 'begin' | 'created' | 'finish'>;
  readonly now: () => Date;
}

export async function proveWrites(deps: WriteProofDeps, entity: Entity): Promise<CheckLine[]> {
  const steps = new Steps(deps, { kind: entity.kind, id: entity.id });
  const startedAt = deps.now();
  const listed = await steps.run(
    'listDocuments',
    async () => {
      let n = 0;
      for await (const _entry of deps.client.documentVersions(steps.owner)) n++;
      return n;
    },
    (n) => `${n} documents in ${entity.kind} ${entity.name}`,
  );
  if (listed === null) return steps.skipRest('the document list failed');
  const types = await deps.client.statusTypes().catch(() => [] as StatusType[]);
  // The file to upload is written before anything is made in the service.
  const scratch = await mkdtemp(path.join(tmpdir(), 'docsync-check-'));
  try {
    const bytes = Buffer.concat([
      Buffer.from(`docsync check --write ${startedAt.toISOString()}\n`),
      randomBytes(4096),
    ]);
    const file = { path: path.join(scratch, PROOF_FILE_NAME), bytes, scratch };
    await writeFile(file.path, bytes);
    const proof = { steps, entity, types, file, name: proofDocumentName(startedAt), startedAt };
    const created = await createTestDocument(deps, proof);
    if (created === null) return steps.lines;
    await proveOnDocument(deps, proof, created);
    return steps.lines;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

interface Proof {
  readonly steps: Steps;
  readonly entity: Entity;
  readonly types: readonly StatusType[];
  /** The file to upload, and the scratch folder it is in. */
  readonly file: { readonly path: string; readonly bytes: Buffer; readonly scratch: string };
  /** The test document's name (domain/write-proofs.ts). */
  readonly name: string;
  readonly startedAt: Date;
}

/**
 * The test document, recorded before its create is sent: a crash from then on leaves a record
 * to find it by. Null when it was not created; the lines say why, and what may be left.
 */
async function createTestDocument(deps: WriteProofDeps, p: Proof): Promise<RemoteDocument | null> {
  const { steps, name } = p;
  deps.proofs.begin({
    name,
    owner: steps.owner,
    entityName: p.entity.name,
    pid: process.pid,
    startedAt: p.startedAt.getTime(),
  });
  let madeNothing = false;
  const created = await steps.run(
    'createDocument',
    async () => {
      const documentDate = p.startedAt.toISOString().slice(0, 10);
      const doc = await deps.client
        .createDocument(steps.owner, { name, documentDate })
        .catch((error: unknown) => {
          // Refused: nothing was made. Any other failure may have made it: the record stays.
          madeNothing = refused(error);
          if (madeNothing) deps.proofs.finish(name);
          throw error;
        });
      deps.proofs.created(name, doc.id);
      return doc;
    },
    (doc) => `test document ${doc.id} "${doc.name}" created`,
  );
  if (created !== null) return created;
  steps.skipRest('the test document was not created');
  if (!madeNothing) steps.lines.push(mayBeLeft(name, p.entity));
  return null;
}

/** Every step on the created test document, from the upload to the read that must answer 404. */
async function proveOnDocument(deps: WriteProofDeps, p: Proof, created: RemoteDocument) {
  const { steps, entity, types, file } = p;
  const today = p.startedAt.toISOString().slice(0, 10);
  // Where the copies go in the trash: under the entity's folder, as a document of it would.
  const folder = `${deps.entityFolder ?? `docsync check/${entity.kind} ${entity.id}`}/docsync check ${created.id}`;
  const attachment = await steps.run(
    'uploadAttachment',
    () =>
      deps.client.uploadAttachment(
        steps.owner,
        created.id,
        namedUploadSource(file.path),
        PROOF_FILE_NAME,
      ),
    (a) => `attachment ${a.id} (${file.bytes.length} bytes) uploaded`,
  );
  if (attachment) {
    const sent = sha256(file.bytes);
    await steps.run(
      'attachmentLink',
      () =>
        deps.client.downloadAttachment(
          steps.owner,
          created.id,
          attachment.id,
          path.join(file.scratch, 'back.bin'),
        ),
      (got) => {
        if (got.sha256 !== sent) {
          throw new DocsyncError(
            'CHECK_BYTES_DIFFER',
            `downloaded ${got.bytes} bytes whose sha256 differs from what was uploaded`,
          );
        }
        return `a link, and ${got.bytes} bytes downloaded from it: the same bytes as uploaded`;
      },
    );
  } else steps.skip('attachmentLink', 'the upload failed');

  const status = types.find((t) => t.name !== created.status?.type) ?? types[0];
  if (status) {
    await steps.run(
      'assignStatus',
      () => deps.client.assignStatus(steps.owner, created.id, status.id, today),
      (s) => `status "${s.type}" assigned`,
    );
  } else steps.skip('assignStatus', 'the service listed no status type');

  await steps.run(
    'documentDetails',
    () => deps.client.document(steps.owner, created.id),
    (d) =>
      `the test document reads back with status "${d.status?.type ?? 'none'}" and ${d.attachments.length} attachment(s)`,
  );
  await deleteTestDocument(deps, p, created, folder, attachment?.id ?? null);
}

/** The file, then the document, each after its copy is kept; then the read that must answer 404. */
async function deleteTestDocument(
  deps: WriteProofDeps,
  p: Proof,
  created: RemoteDocument,
  folder: string,
  attachmentId: string | null,
): Promise<void> {
  const { steps } = p;
  if (attachmentId !== null) {
    await steps.run(
      'deleteAttachment',
      async () => {
        const now = await deps.client.document(steps.owner, created.id);
        await keepCopy(deps, steps.owner, now, folder, attachmentId);
        await deps.client.deleteAttachment(steps.owner, created.id, attachmentId);
      },
      () => `attachment ${attachmentId} deleted (its copy is in ${deps.trashName})`,
    );
  } else steps.skip('deleteAttachment', 'the upload failed');

  const deleted = await steps.run(
    'deleteDocument',
    async () => {
      const now = await deps.client.document(steps.owner, created.id);
      await keepCopy(deps, steps.owner, now, folder, null, p.types);
      await deps.client.deleteDocument(steps.owner, created.id);
      // Forgotten only once the service deleted it.
      deps.proofs.finish(p.name);
    },
    () => `test document ${created.id} deleted (its copy is in ${deps.trashName})`,
  );
  if (deleted === null) steps.lines.push(leftBehind(created, p.entity));
  else await steps.gone(created.id);
}

/**
 * The service's copy of what is about to be deleted, into `.docsync/trash/`, as the sync keeps
 * one (engine/save-service-copy.ts): an attachment alone, or the whole document. No copy, no
 * delete.
 */
async function keepCopy(
  deps: WriteProofDeps,
  owner: OwnerRef,
  doc: RemoteDocument,
  folder: string,
  attachmentId: string | null,
  types: readonly StatusType[] = [],
): Promise<void> {
  const attachments = doc.attachments.filter((a) => attachmentId === null || a.id === attachmentId);
  if (attachmentId !== null && attachments.length === 0) {
    throw new DocsyncError(
      'CHECK_NO_COPY',
      `attachment ${attachmentId} is not on the test document, so no copy of it could be kept; it was not deleted`,
    );
  }
  const files = attachments.map((a) => ({
    key: a.id,
    desiredName: a.name,
    fill: (to: string) => deps.client.downloadAttachment(owner, doc.id, a.id, to),
  }));
  const link = entityDeepLink(deps.webUrl, owner);
  const meta =
    attachmentId === null
      ? (written: ReadonlyMap<string, LocalFile>) =>
          metaFromBase(baseFromDocument(doc, folder, written), extrasOf(doc), types, link)
      : null;
  await deps.local.saveToTrash(folder, files, meta, { owner, documentId: doc.id, attachmentId });
}

/** The create's outcome is unknown: the service may have made the test document. */
function mayBeLeft(name: string, entity: Entity): CheckLine {
  return fail(
    'test document',
    `the service may have made the test document "${name}" in ${entityLabel(entity, entity.name)} before the create failed`,
    'If it did, no sync pulls it into the folder, and the next `docsync check --write` or `docsync run` removes it.',
  );
}

function leftBehind(doc: RemoteDocument, entity: Entity): CheckLine {
  return fail(
    'test document',
    `test document ${doc.id} "${doc.name}" is still in ${entityLabel(entity, entity.name)}`,
    'No sync pulls it into the folder; the next `docsync check --write` or `docsync run` removes it (or delete it in the service yourself).',
  );
}

/** The service refused the request: it made nothing. */
function refused(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.code === 'HTTP_ERROR' &&
    error.status !== undefined &&
    error.status < 500
  );
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
