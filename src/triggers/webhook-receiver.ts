/**
 * The webhook receiver of daemon.md: an HTTP server on `webhook.listen` that takes Document
 * Change messages on `POST {webhook.path}` (see webhook-request.ts for one message's way) and
 * hands each new stored event to `onEvent` after answering (the daemon's, daemon/webhook-work.ts).
 * At start it hands the events still pending whose entity's work they are not part of yet; the
 * others wait in their entities' work rows, which the daemon asks for itself.
 *
 * Whatever arrives, nothing escapes: a failing handler answers 500 and is logged, and a state
 * failure is also handed to `onStateFailure` (the daemon stops for it). `close()` stops
 * accepting and lets in-flight answers finish; a second call waits for the first.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log/create-logger.js';
import { documentPlace } from '../state/document-place.js';
import { isStateFailure } from '../state/state-failure.js';
import type { StateStore } from '../state/state-store.js';
import { listen } from '../web/listen.js';
import type { Metrics } from '../web/metrics.js';
import { type OnDocumentChange, toDocumentChangeEvent } from './webhook-event.js';
import { answer, handleDocumentChange, type ResolveResource } from './webhook-request.js';

export interface WebhookReceiverOptions {
  /**
   * `service.webUrl` and the status listener's `publicUrl` shape the answer's `resourceUrl`
   * (webhook-request.ts); without them it is the template alone.
   */
  readonly config: Pick<Config, 'webhook'> & {
    readonly service?: Pick<Config['service'], 'webUrl'>;
    readonly status?: Pick<Config['status'], 'enabled' | 'publicUrl'>;
  };
  readonly state: StateStore;
  readonly logger: Logger;
  readonly onEvent: OnDocumentChange;
  readonly metrics?: Metrics;
  /** Fills `resourceUrl`'s placeholders; default: the state's base and entities (document-place). */
  readonly resolveResource?: ResolveResource;
  /**
   * Hears a state failure (disk full, damaged file) met while recording or handing on an event,
   * after it was logged and answered: the daemon stops for it. Other failures are only logged.
   */
  readonly onStateFailure?: (error: unknown) => void;
  readonly now?: () => number;
}

export interface WebhookReceiver {
  /** Where the receiver listens, path included, e.g. `http://127.0.0.1:8787/webhooks/...`. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  options: WebhookReceiverOptions,
): Promise<WebhookReceiver> {
  const config = options.config.webhook;
  const logger = options.logger.child({ component: 'webhook' });
  const now = options.now ?? Date.now;
  const onStateFailure = (error: unknown) => {
    if (isStateFailure(error)) options.onStateFailure?.(error);
  };
  const handOn = (eventId: string) => {
    try {
      const stored = options.state.webhookEvents.get(eventId);
      if (stored) options.onEvent(toDocumentChangeEvent(stored));
    } catch (error) {
      logger.error({ err: error, eventId }, 'webhook event bookkeeping failed');
      onStateFailure(error);
    }
  };
  const ctx = {
    config,
    state: options.state,
    logger,
    metrics: options.metrics,
    now,
    links: {
      webUrl: options.config.service?.webUrl,
      stableBase: options.config.status?.enabled ? options.config.status.publicUrl : undefined,
    },
    resolveResource:
      options.resolveResource ??
      ((event) => documentPlace(options.state, event.documentIds[0], event.entityId)),
    accepted: handOn,
  };
  const inFlight = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    const work = route(ctx, req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'webhook request failed');
      // A 500 makes the service send the message again, to the next docsync that can record it.
      if (res.headersSent) res.destroy();
      else answer(res, 500, { message: 'internal error; the message was not recorded' });
      onStateFailure(error);
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });
  // A slow or endless sender must not hold a connection forever.
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;
  server.on('error', (error) => logger.error({ err: error }, 'webhook server error'));
  const url = `${await listen(server, config.listen.host, config.listen.port, 'webhook.listen')}${config.path}`;
  logger.info({ url }, 'webhook receiver listening');
  handOnPending(options.state, handOn, logger, onStateFailure);

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.allSettled([...inFlight]);
      server.closeAllConnections();
      await stopped;
      logger.info('webhook receiver closed');
    })();
    return closing;
  };
  return { url, close };
}

type RouteContext = Parameters<typeof handleDocumentChange>[0];

async function route(ctx: RouteContext, req: IncomingMessage, res: ServerResponse) {
  const path = new URL(req.url ?? '/', 'http://receiver').pathname;
  if (path !== ctx.config.path) {
    req.resume();
    return answer(res, 404, { message: `nothing here; webhooks go to ${ctx.config.path}` });
  }
  if (req.method !== 'POST') {
    req.resume();
    res.setHeader('Allow', 'POST');
    return answer(res, 405, { message: 'only POST is accepted here' });
  }
  await handleDocumentChange(ctx, req, res);
}

/** The events pending from before a restart that are not part of an entity's work yet. */
function handOnPending(
  state: StateStore,
  handOn: (eventId: string) => void,
  logger: Logger,
  onStateFailure: (error: unknown) => void,
): void {
  try {
    const pending = state.webhookEvents.pendingEvents().filter((event) => event.owner === null);
    if (pending.length > 0)
      logger.info({ count: pending.length }, 'offering pending webhook events');
    for (const event of pending) handOn(event.eventId);
  } catch (error) {
    logger.error({ err: error }, 'could not read pending webhook events');
    onStateFailure(error);
  }
}
