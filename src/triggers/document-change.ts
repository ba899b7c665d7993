/**
 * The Document Change message (api.md "Webhooks: Document Change"), validated with zod. The
 * service declares `application/x-www-form-urlencoded` but sends a JSON text, so the body is
 * parsed as JSON whatever the content type says. Ids may come as numbers or strings and are
 * kept as strings, like every id inside docsync. An `eventType` or `eventSubType` docsync does
 * not know is not malformed: a service that adds one must not see its deliveries refused and
 * retried (daemon.md), so it is told apart, to be answered 200 and ignored. A `documentChange`
 * without an `eventSubType` is read as a change of its entity, of no kind in particular: the
 * public pages do not say every message carries one, and a sync of the entity finds what changed.
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
  eventSubType: z
    .enum(EVENT_SUB_TYPES)
    .nullish()
    .transform((v) => v ?? null),
  firmId: id,
  tenants: z.array(z.object({ tenantId: id, tenantType: z.string() })),
  userId: id,
});

export type DocumentChangeMessage = z.output<typeof messageSchema>;

/** An event of a type docsync does not know: what can be read of it, for the log and the link. */
export interface UnknownEvent {
  readonly eventType: string;
  readonly eventSubType: string | null;
  readonly eventId: string | null;
  readonly entityId: string | null;
  readonly documentIds: readonly string[];
}

export type ParsedMessage =
  | { readonly kind: 'message'; readonly message: DocumentChangeMessage }
  | { readonly kind: 'unknown'; readonly event: UnknownEvent }
  | { readonly kind: 'malformed'; readonly reason: string };

/** Just enough of any event to tell its type, and what it names when it can be read. */
const envelopeSchema = z.looseObject({
  eventType: z.string(),
  eventSubType: z.string().nullish().catch(undefined),
  eventId: id.optional().catch(undefined),
  entityId: id.optional().catch(undefined),
  tenants: z.array(z.looseObject({ tenantId: id, tenantType: z.string() })).catch([]),
});

export function parseDocumentChange(rawBody: string): ParsedMessage {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch (error) {
    return {
      kind: 'malformed',
      reason: `the body is not a JSON text: ${(error as Error).message}`,
    };
  }
  const unknown = unknownEvent(json);
  if (unknown) return { kind: 'unknown', event: unknown };
  const result = messageSchema.safeParse(json, { reportInput: true });
  if (result.success) return { kind: 'message', message: result.data };
  const problems = describeIssues(result.error.issues);
  return {
    kind: 'malformed',
    reason: problems.map((p) => (p.key ? `${p.key}: ${p.message}` : p.message)).join('; '),
  };
}

/** Another `eventType`, or a `documentChange` of another `eventSubType`; null otherwise. */
function unknownEvent(json: unknown): UnknownEvent | null {
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) return null;
  const { eventType, eventSubType, eventId, entityId, tenants } = envelope.data;
  const knownSubType = (EVENT_SUB_TYPES as readonly string[]).includes(eventSubType ?? '');
  const none = eventSubType === undefined || eventSubType === null;
  if (eventType === 'documentChange' && (none || knownSubType)) return null;
  return {
    eventType,
    eventSubType: eventSubType ?? null,
    eventId: eventId ?? null,
    entityId: entityId ?? null,
    documentIds: tenants.filter((t) => t.tenantType === 'documentId').map((t) => t.tenantId),
  };
}

/** The documents the message is about: its tenants of type `documentId`. */
export function documentIdsOf(message: DocumentChangeMessage): string[] {
  return message.tenants.filter((t) => t.tenantType === 'documentId').map((t) => t.tenantId);
}
