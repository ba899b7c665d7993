/**
 * The steps of `docsync check --write`: every route that writes a document, proven on one
 * entity, in the order a document lives. The entity's list (which finds the document routes'
 * prefix on first contact, as a run would), a test document created, a file uploaded, its link
 * asked for and its bytes downloaded and compared, a status assigned, the document read back,
 * the file deleted and then the document, each after its copy went to `.docsync/trash/` as the
 * sync keeps one, and a last read that must answer 404. Each step is a line with the route as
 * called and what it answered; a step whose input failed is not tried. A test document left
 * behind by a failure is named, so a person can delete it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { baseFromDocument } from '../domain/apply-action-result.js';
import { type CheckLine, fail, ok, untried } from '../domain/check-lines.js';
import { entityDeepLink } from '../domain/deep-links.js';
import { DocsyncError } from '../domain/errors.js';
import type { Entity, LocalFile, OwnerRef, RemoteDocument, StatusType } from '../domain/types.js';
import { extrasOf, metaFromBase } from '../engine/document-meta.js';
import type { LocalStore } from '../local/local-store.js';
import { namedUploadSource } from '../local/upload-file.js';
import { ApiError } from '../remote/api-error.js';
import { routeData } from '../remote/route-prober.js';
import type { RouteName } from '../remote/routes.js';
import { serviceAdvice } from '../remote/service-advice.js';
import type { ServiceClient } from '../remote/service-client.js';
import type { ResponseInfo, ServiceHttp } from '../remote/service-http.js';

export interface WriteProofDeps {
  readonly client: ServiceClient;
  readonly http: ServiceHttp;
  readonly local: LocalStore;
  /** The service's last answer (the client's `onResponse`). */
  readonly lastAnswer: () => ResponseInfo | undefined;
  readonly baseUrl: string;
  readonly webUrl: string;
  /** The entity's folder relative to the root, when docsync has one (the copy is kept under it). */
  readonly entityFolder: string | null;
  readonly now: () => Date;
}

export async function proveWrites(deps: WriteProofDeps, entity: Entity): Promise<CheckLine[]> {
  const steps = new Steps(deps, { kind: entity.kind, id: entity.id });
  const stamp = deps.now().toISOString();
  const today = stamp.slice(0, 10);
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

  const created = await steps.run(
    'createDocument',
    () =>
      deps.client.createDocument(steps.owner, {
        name: `docsync check ${stamp}`,
        documentDate: today,
      }),
    (doc) => `test document ${doc.id} "${doc.name}" created`,
  );
  if (created === null) return steps.skipRest('the test document was not created');
  // Where the copies go in the trash: under the entity's folder, as a document of it would.
  const folder = `${deps.entityFolder ?? `docsync check/${entity.kind} ${entity.id}`}/docsync check ${created.id}`;

  const scratch = await mkdtemp(path.join(tmpdir(), 'docsync-check-'));
  try {
    const bytes = Buffer.concat([
      Buffer.from(`docsync check --write ${stamp}\n`),
      randomBytes(4096),
    ]);
    const file = path.join(scratch, 'docsync-check.bin');
    await writeFile(file, bytes);
    const sent = sha256(bytes);
    const attachment = await steps.run(
      'uploadAttachment',
      () =>
        deps.client.uploadAttachment(
          steps.owner,
          created.id,
          namedUploadSource(file),
          'docsync-check.bin',
        ),
      (a) => `attachment ${a.id} (${bytes.length} bytes) uploaded`,
    );
    if (attachment) {
      await steps.run(
        'attachmentLink',
        () =>
          deps.client.downloadAttachment(
            steps.owner,
            created.id,
            attachment.id,
            path.join(scratch, 'back.bin'),
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

    if (attachment) {
      await steps.run(
        'deleteAttachment',
        async () => {
          const now = await deps.client.document(steps.owner, created.id);
          await keepCopy(deps, steps.owner, now, folder, attachment.id);
          await deps.client.deleteAttachment(steps.owner, created.id, attachment.id);
        },
        () => `attachment ${attachment.id} deleted (its copy is in .docsync/trash/)`,
      );
    } else steps.skip('deleteAttachment', 'the upload failed');

    const deleted = await steps.run(
      'deleteDocument',
      async () => {
        const now = await deps.client.document(steps.owner, created.id);
        await keepCopy(deps, steps.owner, now, folder, null, types);
        await deps.client.deleteDocument(steps.owner, created.id);
      },
      () => `test document ${created.id} deleted (its copy is in .docsync/trash/)`,
    );
    if (deleted === null) {
      steps.lines.push(leftBehind(created, entity));
      return steps.lines;
    }
    await steps.gone(created.id);
    return steps.lines;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** One request's line: the route as called for the entity's kind, and what it answered. */
class Steps {
  readonly lines: CheckLine[] = [];
  readonly #tried = new Set<RouteName>();

  constructor(
    private readonly deps: WriteProofDeps,
    readonly owner: OwnerRef,
  ) {}

  async run<T>(
    name: RouteName,
    call: () => Promise<T>,
    say: (value: T) => string,
  ): Promise<T | null> {
    this.#tried.add(name);
    const route = this.deps.http.route(name, this.owner.kind);
    const label = `${route.method} ${route.path}`;
    const before = this.deps.lastAnswer();
    try {
      const value = await call();
      const answer = this.#answer(before);
      const time = answer ? ` in ${answer.durationMs} ms` : '';
      const status = answer?.status ?? 'ok';
      this.lines.push(
        ok(label, `answered ${status}: ${say(value)}${time}`, {
          ...routeData(name, route),
          status,
        }),
      );
      return value;
    } catch (error) {
      if (!(error instanceof DocsyncError)) throw error;
      const answer = this.#answer(before);
      const hint =
        (error instanceof ApiError
          ? serviceAdvice(error, { baseUrl: this.deps.baseUrl, route: { name, route } })
          : null) ?? 'See the message; the steps after this one were not tried.';
      this.lines.push(
        fail(label, error.message, hint, {
          ...routeData(name, route),
          status: answer?.status ?? null,
        }),
      );
      return null;
    }
  }

  skip(name: RouteName, why: string): void {
    this.#tried.add(name);
    const route = this.deps.http.route(name, this.owner.kind);
    this.lines.push(
      untried(
        `${route.method} ${route.path}`,
        `not tried: ${why}`,
        undefined,
        routeData(name, route),
      ),
    );
  }

  /** Every write route not reached yet, as not tried. */
  skipRest(why: string): CheckLine[] {
    for (const name of WRITE_STEPS) if (!this.#tried.has(name)) this.skip(name, why);
    return this.lines;
  }

  /** The deleted test document must be gone: a read of it answers 404. */
  async gone(documentId: string): Promise<void> {
    const route = this.deps.http.route('documentDetails', this.owner.kind);
    const label = `${route.method} ${route.path}`;
    const data = routeData('documentDetails', route);
    try {
      await this.deps.client.document(this.owner, documentId);
      this.lines.push(
        fail(
          label,
          `the deleted test document ${documentId} still reads`,
          'The delete answered but did not delete: tell the service provider.',
          data,
        ),
      );
    } catch (error) {
      if (!(error instanceof DocsyncError)) throw error;
      const gone = error instanceof ApiError && error.status === 404;
      this.lines.push(
        gone
          ? ok(label, 'answered 404: the test document is gone, as deleted', {
              ...data,
              status: 404,
            })
          : fail(
              label,
              `reading the deleted test document back failed: ${error.message}`,
              'Look for the test document in the service, and delete it there if it is still listed.',
              data,
            ),
      );
    }
  }

  #answer(before: ResponseInfo | undefined): ResponseInfo | undefined {
    const after = this.deps.lastAnswer();
    return after === before ? undefined : after;
  }
}

const WRITE_STEPS: readonly RouteName[] = [
  'createDocument',
  'uploadAttachment',
  'attachmentLink',
  'assignStatus',
  'documentDetails',
  'deleteAttachment',
  'deleteDocument',
];

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

function leftBehind(doc: RemoteDocument, entity: Entity): CheckLine {
  return fail(
    'test document',
    `test document ${doc.id} "${doc.name}" is still in ${entity.kind} ${entity.name}`,
    `Delete it in the service (or \`docsync api documents delete ${entity.kind} ${entity.id} ${doc.id}\` once the route works).`,
  );
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
