/**
 * What each kind of push stores in the outbox: enough to send it, and to recognise it in the
 * service after a crash (docs/state.md, "Crash safety"). One definition per kind, written by the
 * executor and read back by the in-doubt settlement through the same schema: a payload crosses
 * the database, so it is checked on the way out rather than cast.
 */
import * as z from 'zod';
import type { EntryIdentity } from '../domain/types.js';

const localFile = {
  /** The file's name in the document folder, which is also the name it is uploaded under. */
  fileName: z.string(),
  sha256: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
};

/** A folder's or file's identity on disk, as the local store made it (opaque here). */
const entryIdentity = z.custom<EntryIdentity>((value) => typeof value === 'string' && value !== '');

/**
 * A conflict a push settles where the folder's side wins over a service user's delete (row 12:
 * the document made again; row 33: a file's new content over its removed attachment): kept with
 * the push and recorded in the commit that completes it, on the service's answer or when a push
 * whose answer was lost is found carried out (resolve-in-doubt.ts).
 */
const pushConflict = z.object({
  detail: z.string(),
  subject: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('document') }),
    z.object({ kind: z.literal('attachment'), file: z.string() }),
  ]),
});

const attachment = z.object({
  id: z.string(),
  kind: z.enum(['user', 'system']),
  name: z.string(),
  creationDate: z.string().nullable(),
});

export const PUSH_PAYLOADS = {
  'create-document': z.object({
    name: z.string(),
    documentDate: z.string(),
    folder: z.string(),
    /**
     * The folder's identity on disk (EntryIdentity) when the push was recorded: the push follows
     * the folder by it, whatever a person renames it to (none on a share without inodes).
     */
    folderIdentity: entryIdentity.optional(),
    /** The document the service made, once it answered: settled by id, not looked for by name. */
    createdId: z.string().optional(),
    /**
     * What the answer said of what a service user may change since (its status, its change
     * time): a settlement after a crash agrees the document as it was made, so a change of
     * either side since is a change, not the agreed state.
     */
    made: z
      .object({
        lastUpdatedTimestamp: z.string(),
        status: z
          .object({
            id: z.string(),
            typeId: z.string(),
            type: z.string(),
            effectiveDate: z.string(),
            createdBy: z.string().nullable(),
          })
          .nullable(),
      })
      .optional(),
    /**
     * A restore replaces this base row (or the record of a delete docsync made, row 19); an
     * in-doubt settlement must drop it too.
     */
    replaces: z.string().optional(),
    conflict: pushConflict.optional(),
  }),
  'upload-attachment': z.object({
    ...localFile,
    /** The file's identity on disk when the push was recorded: the upload follows the file. */
    fileIdentity: entryIdentity.optional(),
    conflict: pushConflict.optional(),
  }),
  /**
   * New content for a user attachment, in two steps kept in one entry: the upload, then the
   * old attachment's removal. `uploaded` is set when the first step is done, so a crash
   * between the two resumes at the second instead of leaving both versions in the service.
   */
  'replace-attachment': z.object({
    ...localFile,
    replacesAttachmentId: z.string(),
    uploaded: attachment.optional(),
  }),
  'delete-attachment': z.object({ attachmentId: z.string() }),
  'assign-status': z.object({
    typeId: z.string(),
    effectiveDate: z.string(),
    /**
     * A status set on both sides whose folder's side wins (row 23): the conflict the push
     * settles, recorded with the push's completion (its answer, or a settlement that finds it
     * carried out). Recorded only once the service's status is replaced, never before.
     */
    conflict: z.object({ detail: z.string(), lost: z.string().nullable() }).optional(),
  }),
  'delete-document': z.object({ folder: z.string() }),
} as const;

export type OutboxKind = keyof typeof PUSH_PAYLOADS;

export type PushPayload<K extends OutboxKind = OutboxKind> = z.output<(typeof PUSH_PAYLOADS)[K]>;

/** A kind with its payload, as one discriminated union (`kind` narrows `payload`). */
export type TypedPush = {
  [K in OutboxKind]: { readonly kind: K; readonly payload: PushPayload<K> };
}[OutboxKind];

export const OUTBOX_KINDS = Object.keys(PUSH_PAYLOADS) as OutboxKind[];

/** The payload stored for `kind`, checked; throws a ZodError naming the field at fault. */
export function parsePushPayload<K extends OutboxKind>(kind: K, value: unknown): PushPayload<K> {
  return PUSH_PAYLOADS[kind].parse(value) as PushPayload<K>;
}
