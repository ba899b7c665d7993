/**
 * The daemon's two listeners: the webhook receiver, whose events become targeted cycles, and
 * the status server, which reads the state database and the daemon's runtime view.
 */
import type { OwnerRef } from '../domain/types.js';
import type { DocumentChangeEvent } from '../triggers/webhook-event.js';
import { startWebhookReceiver } from '../triggers/webhook-receiver.js';
import type { Metrics } from '../web/metrics.js';
import type { OperatorActions, PageActions } from '../web/page-actions.js';
import { startStatusServer } from '../web/status-server.js';
import type { Closable, Daemon, DaemonHost, DaemonListeners } from './daemon.js';

export interface ListenerOptions {
  readonly app: DaemonHost;
  readonly metrics: Metrics;
  readonly requestsPerSecond: () => number;
  /** When the service last answered (not with a 5xx), for `/healthz`. */
  readonly lastServiceAnswerAt: () => number | null;
  /** docsync's version, for the status page. */
  readonly version: string;
  /** The status page's "approve held deletes" and "resolve a conflict". */
  readonly operator: OperatorActions;
}

export async function startListeners(
  daemon: Daemon,
  options: ListenerOptions,
): Promise<DaemonListeners> {
  const { app, metrics } = options;
  const { config, state, logger } = app;
  const intake: Closable[] = [];
  const observers: Closable[] = [];
  if (config.webhook.enabled) {
    const receiver = await startWebhookReceiver({
      config,
      state,
      logger,
      metrics,
      onEvent: (event) => onDocumentChange(daemon, app, event),
      onStateFailure: (error) => daemon.stateFailed(error),
    });
    // The receiver says it listens, with its URL; saying it here too doubled the line.
    intake.push(receiver);
  }
  if (config.status.enabled) {
    const startedAt = Date.now();
    const server = await startStatusServer({
      config,
      state,
      metrics,
      logger,
      actions: pageActions(daemon, app, options.operator),
      runtime: () => {
        const tokens = readTokens(app);
        return {
          nextCycleAt: daemon.nextCycleAt()?.toISOString() ?? null,
          queueDepth: app.remote.queue.depth,
          requestsPerSecond: options.requestsPerSecond(),
          requestBudgetPerSecond: config.queue.requestsPerSecond,
          daemon: { version: options.version, startedAt },
          watcherMode: daemon.watcherMode,
          tokenValid: Boolean(tokens?.refreshToken) && !daemon.authLost,
          lastServiceAnswerAt: options.lastServiceAnswerAt(),
          stateFailure: daemon.stateFailure?.message ?? null,
          work: daemon.workStatus(),
          folderMode: daemon.folderMode,
        };
      },
    });
    observers.push(server);
  }
  return { intake, observers };
}

/**
 * The status page's buttons. "Sync now" is a full listing of the entity (deletions included) in
 * the webhook lane, ahead of polling: a person is waiting for it. The page answers once the
 * sync is queued; what it changed shows in the activity feed.
 */
function pageActions(daemon: Daemon, app: DaemonHost, operator: OperatorActions): PageActions {
  return {
    operator,
    syncEntity: (owner) => {
      const record = app.state.entities.get(owner);
      if (!record) {
        return {
          kind: 'not-found',
          message: `docsync knows no ${owner.kind} ${owner.id}; the service may have removed it`,
        };
      }
      void daemon.request({ trigger: 'manual', owner, fullReconcile: true });
      return {
        kind: 'done',
        message: `A sync of ${record.entity.name} is queued; what it changes shows under Recent changes.`,
      };
    },
  };
}

/**
 * api.md 6.3: every event means "sync this document's entity"; a deletion also names the
 * document, because a listing filtered by time can never show it. An entity docsync does not
 * know yet (a new company) makes it read the entity list first.
 */
async function onDocumentChange(
  daemon: Daemon,
  app: DaemonHost,
  event: DocumentChangeEvent,
): Promise<void> {
  // Any spelling of the id (the public example has a company's without dashes): domain/ids.ts.
  const find = () => app.state.entities.findById(event.entityId) ?? undefined;
  let record = find();
  if (!record) {
    await daemon.refreshEntities();
    record = find();
    if (!record) {
      app.logger.warn(
        { entityId: event.entityId },
        'a webhook named an entity the service does not list; ignored',
      );
      return;
    }
  }
  const owner: OwnerRef = { kind: record.entity.kind, id: record.entity.id };
  if (event.subType === 'deleteDocument') {
    await Promise.all(
      event.documentIds.map((deletedId) =>
        daemon.request({ trigger: 'webhook', owner, deletedId }),
      ),
    );
    return;
  }
  await daemon.request({ trigger: 'webhook', owner });
}

/** The stored tokens, or none when the state cannot be read (its failure is reported apart). */
function readTokens(app: DaemonHost) {
  try {
    return app.state.tokens.read();
  } catch {
    return null;
  }
}
