/** Attachments of a document: upload (multipart), download link, delete. */
import type { DocumentOps } from './document-ops.js';
import { findAttachment } from './document-ops.js';
import type { FaultOptions, Faults } from './faults.js';
import type { Route } from './http-kit.js';
import type { LinkHost } from './link-host.js';
import { OWNER_PATHS, ownerOf, requireOwnedDocument } from './routes-documents.js';
import type { SimShapes } from './shapes.js';
import type { SimStore } from './store.js';
import { receiveUpload } from './upload.js';
import { attachmentView } from './views.js';

export function attachmentRoutes(
  store: SimStore,
  ops: DocumentOps,
  links: LinkHost,
  dataDir: string,
  faults: Faults,
  shapes: SimShapes,
): Route[] {
  return OWNER_PATHS.flatMap(([kind, base]): Route[] => [
    {
      method: 'POST',
      template: `${base}/documents/{documentId}/attachments`,
      auth: true,
      handle: async (ctx) => {
        const doc = requireOwnedDocument(store, ownerOf(kind, ctx), ctx);
        const file = await receiveUpload(ctx.req, dataDir, shapes.uploadField);
        const blob = { kind: 'file' as const, path: file.path, size: file.size };
        const name = storedUploadName(file.name, faults.get());
        return {
          status: 201,
          body: attachmentView(ops.addAttachment(doc, { name, blob }, ctx.actor)),
        };
      },
    },
    {
      method: 'GET',
      template: `${base}/documents/{documentId}/attachments/{attachmentId}/download`,
      auth: true,
      handle: (ctx) => {
        const doc = requireOwnedDocument(store, ownerOf(kind, ctx), ctx);
        const attachment = findAttachment(doc, ctx.params.attachmentId!);
        return { status: 200, body: links.issue(doc.id, attachment) };
      },
    },
    {
      method: 'DELETE',
      template: `${base}/documents/{documentId}/attachments/{attachmentId}`,
      auth: true,
      handle: (ctx) => {
        const doc = requireOwnedDocument(store, ownerOf(kind, ctx), ctx);
        ops.deleteAttachment(doc, ctx.params.attachmentId!, ctx.actor);
        return { status: 204 };
      },
    },
  ]);
}

/**
 * The name an upload is stored under: as sent, or as the `latin1UploadNames` fault (a service
 * that reads the name's UTF-8 bytes as latin1) and the `cleanedUploadNames` one (spaces made
 * `_`) make it.
 */
export function storedUploadName(
  sent: string,
  faults: Pick<FaultOptions, 'latin1UploadNames' | 'cleanedUploadNames'>,
): string {
  const read = faults.latin1UploadNames ? Buffer.from(sent, 'utf8').toString('latin1') : sent;
  return faults.cleanedUploadNames ? read.replaceAll(' ', '_') : read;
}
