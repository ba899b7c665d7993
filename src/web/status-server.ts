/**
 * The status server of daemon.md on `status.listen`: `GET /` (the page), `GET /healthz` (503
 * with the reasons as JSON when docsync cannot sync, else 200 with what waits for a person), `GET /metrics` (Prometheus text), and the page's actions,
 * `POST /actions/…` with the page's CSRF token (csrf.ts). Nothing changes on a GET. It keeps no
 * state of its own but the charts' samples: every request reads the state database and the
 * daemon's runtime facts afresh. A failing request answers 500 and is logged; it never stops
 * the daemon. When the daemon stops because its state cannot be written, `/healthz` answers 503
 * with that reason until the server closes, which the daemon does last.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { type AdviceForm, PLAIN_ADVICE } from '../domain/advice-form.js';
import type { DocumentLinkSettings } from '../domain/document-link.js';
import type { Logger } from '../log/create-logger.js';
import type { HealthFacts } from '../state/health-facts.js';
import type { StateStore } from '../state/state-store.js';
import { attentionItems } from './attention.js';
import { CsrfGuard } from './csrf.js';
import { DOCUMENT_LINK_PREFIX, redirectToDocument } from './document-redirect.js';
import { advised, checkHealth, healthMaxAgeMs } from './health.js';
import { listen } from './listen.js';
import type { Metrics } from './metrics.js';
import type { PageActions } from './page-actions.js';
import { buildStatusPage } from './page-build.js';
import { parsePageQuery } from './page-query.js';
import { send } from './respond.js';
import type { RuntimeProvider, RuntimeStatus } from './runtime-status.js';
import { SAMPLE_EVERY_MS, SampleRing, sampleOf } from './samples.js';
import { runAction, STATUS_ACTIONS } from './status-actions.js';

export interface StatusServerOptions {
  /** With `service`, it also serves the stable document links (document-redirect.ts). */
  readonly config: Pick<Config, 'status' | 'schedule' | 'store' | 'onRemoteDelete'> & {
    readonly service?: Pick<Config['service'], 'webUrl'>;
    readonly webhook?: Pick<Config['webhook'], 'resourceUrlTemplate'>;
  };
  readonly state: StateStore;
  readonly metrics: Metrics;
  readonly runtime: RuntimeProvider;
  readonly logger: Logger;
  readonly now?: () => number;
  /** What the page's buttons do; absent (no daemon), the page draws none and serves no action. */
  readonly actions?: PageActions;
  /** How often the charts sample the runtime (default every 5 s). */
  readonly sampleEveryMs?: number;
  /**
   * How the page and /healthz name docsync's commands: as they run on this machine, for this
   * configuration (domain/advice-form.ts); as installed, on the file found by default, unless
   * told.
   */
  readonly advice?: AdviceForm;
}

export interface StatusServer {
  /** Base URL, e.g. `http://127.0.0.1:8788`. */
  readonly url: string;
  close(): Promise<void>;
}

export interface StatusContext {
  readonly state: StateStore;
  readonly metrics: Metrics;
  readonly runtime: RuntimeProvider;
  readonly root: string;
  /** What an approved delete of a folder the service deleted does to it, for the page's words. */
  readonly onRemoteDelete: Config['onRemoteDelete'];
  readonly maxAgeMs: number;
  readonly now: () => number;
  readonly csrf: CsrfGuard;
  readonly actions: PageActions | undefined;
  readonly samples: SampleRing;
  readonly logger: Logger;
  readonly documentLinks: DocumentLinkSettings | null;
  readonly advice: AdviceForm;
}

type Handler = (ctx: StatusContext, res: ServerResponse, url: URL) => Promise<void>;

/**
 * `/healthz` and `/metrics` read the state's health facts (state/health-facts.ts): counts and
 * indexed lookups whatever the firm's size, so a monitor polling them every second costs the
 * daemon next to nothing. The page is built in slices (page-build.ts).
 */
const ROUTES: Readonly<Record<string, Handler>> = {
  '/': async (ctx, res, url) => {
    const page = await buildStatusPage(ctx, parsePageQuery(url.searchParams));
    send(res, 200, 'text/html; charset=utf-8', page);
  },
  '/healthz': async ({ state, runtime, maxAgeMs, now, advice }, res) => {
    const facts = runtime();
    const read = readFacts(state, facts);
    const attention = read === null ? [] : attentionItems(read.waiting);
    const health = advised(checkHealth(read, facts, attention, maxAgeMs, now()), advice);
    // 503 only when docsync cannot sync; what waits for a person is 200, with the list.
    const status = !health.healthy ? 'unhealthy' : attention.length > 0 ? 'needs attention' : 'ok';
    send(
      res,
      health.healthy ? 200 : 503,
      'application/json',
      JSON.stringify({ status, ...health }),
    );
  },
  '/metrics': async ({ state, runtime, metrics, now }, res) => {
    // Gauges read at scrape time, so they are current without the engine pushing them.
    const facts = runtime();
    const read = state.healthFacts();
    metrics.setConflicts(read.waiting.conflicts);
    metrics.setAttention(read.waiting);
    metrics.setQueueDepth(facts.queueDepth);
    if (facts.work) metrics.setWork(facts.work, stalestMs(read, now()));
    if (facts.watcherMode !== 'off') metrics.setWatcherMode(facts.watcherMode);
    send(res, 200, metrics.contentType, await metrics.text());
  },
};

/** Time since the least recently synced entity was synced; null before any sync. */
function stalestMs(facts: HealthFacts, now: number): number | null {
  const oldest = facts.oldestSuccessAt;
  return oldest === null ? null : now - Math.min(oldest, now);
}

/**
 * The state's facts for `/healthz`; null when they cannot be read but the daemon already knows
 * why (a damaged state file), so the answer is 503 with that reason rather than a bare 500.
 */
function readFacts(state: StateStore, runtime: RuntimeStatus): HealthFacts | null {
  try {
    return state.healthFacts();
  } catch (error) {
    if (runtime.stateFailure) return null;
    throw error;
  }
}

export async function startStatusServer(options: StatusServerOptions): Promise<StatusServer> {
  const logger = options.logger.child({ component: 'status' });
  const { host, port } = options.config.status.listen;
  const ctx: StatusContext = {
    state: options.state,
    metrics: options.metrics,
    runtime: options.runtime,
    root: options.config.store.root,
    onRemoteDelete: options.config.onRemoteDelete,
    // Computed once: it walks the cron schedule.
    maxAgeMs: healthMaxAgeMs(options.config),
    now: options.now ?? Date.now,
    csrf: new CsrfGuard(host, options.config.status.publicUrl),
    actions: options.actions,
    samples: new SampleRing(),
    logger,
    advice: options.advice ?? PLAIN_ADVICE,
    documentLinks: options.config.service
      ? {
          webUrl: options.config.service.webUrl,
          template: options.config.webhook?.resourceUrlTemplate,
        }
      : null,
  };
  const sample = () => {
    try {
      ctx.samples.add(sampleOf(ctx.runtime(), ctx.now()));
    } catch (error) {
      logger.warn({ err: error }, 'could not sample the request rate for the charts');
    }
  };
  sample();
  const sampling = setInterval(sample, options.sampleEveryMs ?? SAMPLE_EVERY_MS);
  sampling.unref();
  const server = createServer((req, res) => {
    handle(ctx, req, res).catch((error: unknown) => {
      logger.error({ err: error, url: req.url }, 'status request failed');
      if (res.headersSent) res.destroy();
      else send(res, 500, 'text/plain; charset=utf-8', 'internal error; see the log\n');
    });
  });
  server.on('error', (error) => logger.error({ err: error }, 'status server error'));
  let url: string;
  try {
    url = await listen(server, host, port, 'status.listen');
  } catch (error) {
    clearInterval(sampling);
    throw error;
  }
  logger.info({ url }, 'status page listening');

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      clearInterval(sampling);
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    return closing;
  };
  return { url, close };
}

async function handle(
  ctx: StatusContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://status');
  // Without a daemon to carry them out, the actions are not served at all: the page draws no
  // buttons, and a POST finds nothing (404).
  const action = STATUS_ACTIONS[url.pathname];
  if (action && ctx.actions) {
    if (req.method !== 'POST') {
      req.resume();
      res.setHeader('Allow', 'POST');
      return send(res, 405, 'text/plain; charset=utf-8', 'only POST: an action changes things\n');
    }
    return runAction(ctx, ctx.actions, action, req, res);
  }
  req.resume();
  const path = url.pathname;
  // What names clients and folders answers only a host of this listener (csrf.ts: rebinding).
  if (path === '/' || path.startsWith(DOCUMENT_LINK_PREFIX)) {
    const refused = ctx.csrf.hostRefusal(req);
    if (refused !== null) {
      ctx.logger.warn({ url: req.url, refusal: refused }, 'status page request refused');
      return send(res, 403, 'text/plain; charset=utf-8', `refused: ${refused}\n`);
    }
  }
  if (ctx.documentLinks && path.startsWith(DOCUMENT_LINK_PREFIX) && isRead(req))
    return redirectToDocument(ctx.state, ctx.documentLinks, url, res);
  const route = ROUTES[path];
  if (!route) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(res, 405, 'text/plain; charset=utf-8', 'only GET\n');
  }
  await route(ctx, res, url);
}

const isRead = (req: IncomingMessage) => req.method === 'GET' || req.method === 'HEAD';
