/**
 * The Document Change message (api.md "Webhooks: Document Change"), validated with zod. The
 * service declares `application/x-www-form-urlencoded` but sends a JSON text, so the body is
 * parsed as JSON whatever the content type says. Ids may come as numbers or strings and are
 * kept as strings, like every id inside docsync.
 */
import * as z from 'zod';
import { describeIssues } from '../domain/describe-issues.js';

const id = z
  .union([z.string().trim().min(1), z.number().int()], { error: 'expected an id' })
  .transform(String);

export const EVENT_SUB_TYPES = [
  'newDocument',
  'deleteDocument',
  'newStatus',
  // api.md: "statusChange also occurs and means the same as newStatus".
  'statusChange',
  'newAttachment',
] as const;

export type EventSubType = (typeof EVENT_SUB_TYPES)[number];

const messageSchema = z.object({
  entityId: id,
  eventId: id,
  eventType: z.literal('documentChange'),
  eventSubType: z.enum(EVENT_SUB_TYPES),
  firmId: id,
  tenants: z.array(z.object({ tenantId: id, tenantType: z.string() })),
  userId: id,
});

export type DocumentChangeMessage = z.output<typeof messageSchema>;

export type ParsedMessage =
  | { readonly ok: true; readonly message: DocumentChangeMessage }
  | { readonly ok: false; readonly reason: string };

export function parseDocumentChange(rawBody: string): ParsedMessage {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch (error) {
    return { ok: false, reason: `the body is not a JSON text: ${(error as Error).message}` };
  }
  const result = messageSchema.safeParse(json, { reportInput: true });
  if (result.success) return { ok: true, message: result.data };
  const problems = describeIssues(result.error.issues);
  return {
    ok: false,
    reason: problems.map((p) => (p.key ? `${p.key}: ${p.message}` : p.message)).join('; '),
  };
}

/** The documents the message is about: its tenants of type `documentId`. */
export function documentIdsOf(message: DocumentChangeMessage): string[] {
  return message.tenants.filter((t) => t.tenantType === 'documentId').map((t) => t.tenantId);
}
