/**
 * The daemon's two listeners: the webhook receiver, whose events become targeted cycles
 * (webhook-work.ts), and the status server, which reads the state database and the daemon's
 * runtime view.
 */
import type { AdviceForm } from '../domain/advice-form.js';
import { startWebhookReceiver } from '../triggers/webhook-receiver.js';
import type { Metrics } from '../web/metrics.js';
import type { OperatorActions, PageActions } from '../web/page-actions.js';
import { startStatusServer } from '../web/status-server.js';
import type { Closable, Daemon, DaemonHost, DaemonListeners } from './daemon.js';
import { WebhookIntake } from './webhook-work.js';

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
  /** How the page names docsync's commands: as they run here, for this configuration. */
  readonly advice?: AdviceForm;
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
    const events = new WebhookIntake({
      state,
      logger,
      now: () => app.clock.now(),
      clock: app.clock,
      counted: (result) => metrics.webhookEvent(result),
      request: (request) => daemon.request(request),
      refreshEntities: () => daemon.refreshEntities(),
      onStateFailure: (error) => daemon.stateFailed(error),
    });
    const receiver = await startWebhookReceiver({
      config,
      state,
      logger,
      metrics,
      onEvent: (event) => events.take(event),
      onStateFailure: (error) => daemon.stateFailed(error),
    });
    // The receiver says it listens, with its URL; saying it here too doubled the line.
    intake.push(receiver, events);
    app.remote.links.addOwnPort(portOf(receiver.url));
  }
  if (config.status.enabled) {
    const startedAt = Date.now();
    const server = await startStatusServer({
      config,
      state,
      metrics,
      logger,
      actions: pageActions(daemon, app, options.operator),
      ...(options.advice ? { advice: options.advice } : {}),
      runtime: () => {
        const tokens = readTokens(app);
        return {
          nextCycleAt: daemon.nextCycleAt()?.toISOString() ?? null,
          queueDepth: app.remote.queue.depth,
          requestsPerSecond: options.requestsPerSecond(),
          requestBudgetPerSecond: config.queue.requestsPerSecond,
          governor: app.remote.queue.governor(),
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
    app.remote.links.addOwnPort(portOf(server.url));
  }
  return { intake, observers };
}

/** The port a listener took (one configured as 0 is known only now): no link may reach it. */
const portOf = (url: string) => Number(new URL(url).port);

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

/** The stored tokens, or none when the state cannot be read (its failure is reported apart). */
function readTokens(app: DaemonHost) {
  try {
    return app.state.tokens.read();
  } catch {
    return null;
  }
}
