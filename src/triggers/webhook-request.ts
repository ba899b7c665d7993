/**
 * One Document Change POST, from bytes to answer: size limit → signature → message → stored in
 * SQLite, with its entity's work when docsync knows the entity → 200. The rows are written before
 * the answer because the 200 promises the service the message will be worked on; the sync is
 * asked for only after the answer is sent, so a slow sync never makes the service wait (or retry).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { assertNever } from '../domain/assert-never.js';
import {
  currentDocumentLink,
  type DocumentPlace,
  fillLinkTemplate,
  stableDocumentLink,
} from '../domain/document-link.js';
import type { Logger } from '../log/create-logger.js';
import type { StateStore } from '../state/state-store.js';
import type { Metrics } from '../web/metrics.js';
import {
  type DocumentChangeMessage,
  documentIdsOf,
  parseDocumentChange,
  type UnknownEvent,
} from './document-change.js';
import { readBody } from './read-body.js';
import { verifySignature } from './verify-signature.js';
import type { DocumentChangeEvent } from './webhook-event.js';

/** daemon.md: "a body over 64 KiB" gets 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/** What docsync knows of the place of the document an event names (state/document-place.ts). */
export type ResolveResource = (
  event: Pick<DocumentChangeEvent, 'entityId' | 'documentIds'>,
) => DocumentPlace | undefined;

/** Where the answer's `resourceUrl` leads (domain/document-link.ts). */
export interface ResourceLinks {
  /** `service.webUrl`: the service's pages, when no folder link can be given yet. */
  readonly webUrl?: string | undefined;
  /** `status.publicUrl`: the stable links' base, when the status listener serves them. */
  readonly stableBase?: string | undefined;
}

export interface RequestContext {
  readonly config: Config['webhook'];
  readonly links: ResourceLinks;
  readonly state: StateStore;
  readonly logger: Logger;
  readonly metrics?: Metrics | undefined;
  readonly now: () => number;
  readonly resolveResource: ResolveResource;
  /** Called once the answer to a new event is sent. */
  readonly accepted: (eventId: string) => void;
}

export async function handleDocumentChange(
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const read = await readBody(req, MAX_BODY_BYTES);
  if (!read.ok) {
    if (read.reason === 'aborted') return;
    ctx.metrics?.webhookEvent('oversized');
    // Discard (never keep) whatever is still coming, then close: the client may still be sending.
    res.setHeader('Connection', 'close');
    answer(res, 413, { message: `the body is larger than ${MAX_BODY_BYTES} bytes` });
    req.resume();
    return;
  }
  const refusal = checkSignature(ctx, req, read.body);
  if (refusal) {
    ctx.metrics?.webhookEvent(refusal.result);
    ctx.logger.warn({ reason: refusal.reason, result: refusal.result }, 'webhook refused');
    return answer(res, 401, { message: refusal.reason });
  }
  const rawBody = read.body.toString('utf8');
  const parsed = parseDocumentChange(rawBody);
  switch (parsed.kind) {
    case 'malformed':
      ctx.metrics?.webhookEvent('malformed');
      ctx.logger.warn({ reason: parsed.reason }, 'webhook refused: malformed message');
      return answer(res, 400, { message: `malformed Document Change message: ${parsed.reason}` });
    case 'unknown':
      return ignore(ctx, res, parsed.event);
    case 'message':
      return storeAndAnswer(ctx, res, parsed.message, rawBody);
    default:
      return assertNever(parsed);
  }
}

/**
 * An event type docsync does not know: 200, so the service does not send it again and again,
 * and nothing recorded or synced; the log and the metric show that it came.
 */
function ignore(ctx: RequestContext, res: ServerResponse, event: UnknownEvent): void {
  ctx.metrics?.webhookEvent('ignored');
  const type = `${event.eventType}${event.eventSubType ? `/${event.eventSubType}` : ''}`;
  ctx.logger.warn(
    {
      eventId: event.eventId,
      entityId: event.entityId,
      eventType: event.eventType,
      eventSubType: event.eventSubType,
    },
    `webhook event of a type docsync does not know (${type}): ignored`,
  );
  const resourceUrl =
    event.entityId === null
      ? undefined
      : resourceUrlFor(
          ctx,
          { entityId: event.entityId, documentIds: event.documentIds },
          event.eventId ?? '',
        );
  answer(res, 200, {
    message: `Event type ${type} is not one docsync acts on; ignored.`,
    ...(resourceUrl ? { resourceUrl } : {}),
  });
}

function storeAndAnswer(
  ctx: RequestContext,
  res: ServerResponse,
  message: DocumentChangeMessage,
  rawBody: string,
): void {
  const event: DocumentChangeEvent = {
    eventId: message.eventId,
    entityId: message.entityId,
    subType: message.eventSubType,
    documentIds: documentIdsOf(message),
    receivedAt: ctx.now(),
    attempt: 1,
  };
  // The state's column takes no null: a message without a subtype is kept as ''.
  const isNew = ctx.state.receiveWebhookEvent({
    ...event,
    subType: event.subType ?? '',
    rawBody,
  });
  ctx.metrics?.webhookEvent(isNew ? 'accepted' : 'duplicate');
  ctx.logger.info(
    { eventId: event.eventId, entityId: event.entityId, subType: event.subType, duplicate: !isNew },
    isNew ? 'webhook event received' : 'webhook event received again; already recorded',
  );
  const resourceUrl = resourceUrlFor(ctx, event, event.eventId);
  answer(res, 200, {
    message: isNew
      ? `Received event ${event.eventId}; docsync will sync the change.`
      : `Event ${event.eventId} was already received.`,
    ...(resourceUrl ? { resourceUrl } : {}),
  });
  if (isNew) setImmediate(() => ctx.accepted(event.eventId));
}

function checkSignature(ctx: RequestContext, req: IncomingMessage, rawBody: Buffer) {
  const { config } = ctx;
  const authorization = req.headers.authorization;
  // allowUnsigned lets unsigned messages in; a message that is signed is still checked.
  if (config.allowUnsigned && (!authorization || !config.secret || !config.clientCode)) return;
  if (!config.secret || !config.clientCode) {
    return { result: 'bad-signature' as const, reason: 'no webhook secret is configured' };
  }
  const check = verifySignature({
    authorization,
    clientCode: config.clientCode,
    secret: config.secret,
    url: fullRequestUrl(config, req),
    rawBody,
    nowMs: ctx.now(),
  });
  if (check.ok) return;
  // An unsigned message counts with the forged ones: both fail authentication.
  const result = check.result === 'unsigned' ? 'bad-signature' : check.result;
  return { result, reason: check.reason } as const;
}

/**
 * The URL the service posted to, which the signature covers: the registered public URL when
 * docsync sits behind a proxy, else what this request says about itself.
 */
export function fullRequestUrl(config: Config['webhook'], req: IncomingMessage): string {
  if (config.publicUrl) return config.publicUrl;
  const host = req.headers.host ?? `${config.listen.host}:${config.listen.port}`;
  return `http://${host}${req.url ?? config.path}`;
}

/**
 * The answer's `resourceUrl`: the stable link when the status listener serves one (it works at
 * once, whatever docsync has synced yet); else the folder's link when docsync knows the folder,
 * or the service's page of the entity while it does not; none when no link is configured.
 */
function resourceUrlFor(
  ctx: RequestContext,
  event: Pick<DocumentChangeEvent, 'entityId' | 'documentIds'>,
  eventId: string,
): string | undefined {
  const documentId = event.documentIds[0];
  const template = ctx.config.resourceUrlTemplate;
  const { stableBase, webUrl } = ctx.links;
  if (stableBase && documentId) return stableDocumentLink(stableBase, documentId, event.entityId);
  if (!template) return undefined;
  try {
    const place = { ...ctx.resolveResource(event), documentId };
    if (webUrl) return currentDocumentLink({ template, webUrl }, place);
    return fillLinkTemplate(template, place) ?? undefined;
  } catch (error) {
    ctx.logger.warn({ err: error, eventId }, 'could not resolve resourceUrl');
    return undefined;
  }
}

export function answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
