/**
 * `.document.json`, `.entity.json` and the note in a service copy in the trash: read (users can
 * break them, so reading never throws for bad content) and written (pretty JSON, a trailing
 * newline, stable key order).
 */
import * as z from 'zod';
import type { DocumentMeta, Entity, OwnerRef } from '../domain/types.js';
import { DOCUMENT_META } from './local-store.js';

const owner = z.object({ kind: z.enum(['company', 'trust']), id: z.string().min(1) });
const nullableString = z.string().nullable();

const documentMeta = z.object({
  id: z.string().min(1),
  owner,
  name: z.string(),
  documentDate: z.string(),
  traceNumber: nullableString,
  asicDocNumber: nullableString,
  status: nullableString,
  statusDate: nullableString,
  lastUpdatedTimestamp: z.string(),
  attachments: z.array(
    z.object({
      id: z.string().min(1),
      kind: z.enum(['user', 'system']),
      file: z.string().min(1),
      creationDate: nullableString,
      sha256: z.string(),
    }),
  ),
  link: z.string(),
});

const entityMeta = z.object({
  kind: z.enum(['company', 'trust']),
  id: z.string().min(1),
  link: z.string(),
  entity: z.record(z.string(), z.unknown()),
});

/**
 * `.docsync-service-copy.json`, beside a copy of what docsync deleted in the service (saved in
 * the trash before the delete): it tells `docsync trash` that these files are the service's,
 * and which of the folder's files the note covers (a local file trashed the same day may land
 * in the same folder).
 */
const serviceCopyNote = z.object({
  owner,
  documentId: z.string().min(1),
  /** Null: the whole document; else the one attachment saved. */
  attachmentId: z.string().min(1).nullable(),
  files: z.array(z.string().min(1)),
  savedAt: z.string(),
});

export type ServiceCopyNote = z.infer<typeof serviceCopyNote>;
export const SERVICE_COPY_NOTE = '.docsync-service-copy.json';

/**
 * docsync's own files in a document folder: never an attachment of the document (the trash's
 * note is dropped right after a restored folder lands, and a crash in between must not make the
 * next sync upload it), never a name one of its files may take.
 */
export function isDocsyncFile(name: string): boolean {
  return name === DOCUMENT_META || name === SERVICE_COPY_NOTE;
}

export function parseServiceCopyNote(text: string): ParseResult<ServiceCopyNote> {
  return parseWith(serviceCopyNote, text);
}

export function formatServiceCopyNote(note: ServiceCopyNote): string {
  return `${JSON.stringify(serviceCopyNote.parse(note), null, 2)}\n`;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseDocumentMeta(text: string): ParseResult<DocumentMeta> {
  return parseWith(documentMeta, text);
}

export interface EntityMeta {
  readonly owner: OwnerRef;
  readonly link: string;
  readonly entity: Readonly<Record<string, unknown>>;
}

export function parseEntityMeta(text: string): ParseResult<EntityMeta> {
  const parsed = parseWith(entityMeta, text);
  if (!parsed.ok) return parsed;
  const { kind, id, link, entity } = parsed.value;
  return { ok: true, value: { owner: { kind, id }, link, entity } };
}

export function formatDocumentMeta(meta: DocumentMeta): string {
  return `${JSON.stringify(documentMeta.parse(meta), null, 2)}\n`;
}

export function formatEntityMeta(entity: Entity, link: string): string {
  const body = { kind: entity.kind, id: entity.id, name: entity.name, link, entity: entity.raw };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** The Windows Internet Shortcut format, which macOS and Linux desktops also open. */
export function formatShortcut(link: string): string {
  return `[InternetShortcut]\r\nURL=${link}\r\n`;
}

function parseWith<T>(schema: z.ZodType<T>, text: string): ParseResult<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  return { ok: false, error: `${issue?.path.join('.') || '(root)'}: ${issue?.message}` };
}
