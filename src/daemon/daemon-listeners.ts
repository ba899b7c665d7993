/**
 * The daemon's two listeners: the webhook receiver, whose events become targeted cycles, and
 * the status server, which reads the state database and the daemon's runtime view.
 */
import type { AdviceForm } from '../domain/advice-form.js';
import { SyncNotDoneError } from '../domain/errors.js';
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

/**
 * api.md 6.3: every event means "sync this document's entity"; a deletion also names the
 * document, because a listing filtered by time can never show it. The deletion is kept in the
 * state until a sync of the entity applies it (any sync, not only this one). An entity docsync
 * does not know yet (a new company) makes it read the entity list first.
 *
 * Resolves only when the sync succeeded: a failed one rejects, and the event is tried again.
 */
async function onDocumentChange(
  daemon: Daemon,
  app: DaemonHost,
  event: DocumentChangeEvent,
): Promise<void> {
  const owner = await ownerNamed(daemon, app, event.entityId);
  if (!owner) {
    app.logger.warn(
      { entityId: event.entityId },
      'a webhook named an entity the service does not list; ignored',
    );
    return;
  }
  if (event.subType === 'deleteDocument')
    app.state.announcedDeletions.add(owner, event.documentIds, event.eventId, Date.now());
  const outcome = await daemon.request({ trigger: 'webhook', owner });
  if (outcome === 'failed') {
    // The service may have removed the entity since the change the event tells of: its sync then
    // fails on every try, and only the entity list says so (its folder is kept, refresh-entities.ts).
    // Read once more, the event is moot; else it is tried again.
    if (!(await stillListed(daemon, app, owner))) {
      app.logger.warn(
        { entityId: event.entityId },
        'a webhook named an entity the service no longer lists; its folder is kept',
      );
      return;
    }
    throw new SyncNotDoneError(
      'SYNC_FAILED',
      `the sync of ${owner.kind} ${owner.id} this event asked for failed`,
    );
  }
  if (outcome === 'stopped')
    throw new SyncNotDoneError('SYNC_STOPPED', 'docsync stopped before the sync was done');
}

/**
 * The company or trust an event names. One not known yet makes docsync read the list again (or
 * join the reading already under way: two at once made every entity folder twice).
 */
async function ownerNamed(
  daemon: Daemon,
  app: DaemonHost,
  entityId: string,
): Promise<OwnerRef | null> {
  // Any spelling of the id (the public example has a company's without dashes): domain/ids.ts.
  const find = () => app.state.entities.findById(entityId) ?? undefined;
  let record = find();
  if (!record) {
    await daemon.refreshEntities();
    record = find();
  }
  return record ? { kind: record.entity.kind, id: record.entity.id } : null;
}

/**
 * Whether the service still lists the entity, after reading the list again (or joining the
 * reading under way); a list that cannot be read fails the event's try, as its sync did.
 */
async function stillListed(daemon: Daemon, app: DaemonHost, owner: OwnerRef): Promise<boolean> {
  await daemon.refreshEntities();
  return app.state.entities.get(owner) !== null;
}

/** The stored tokens, or none when the state cannot be read (its failure is reported apart). */
function readTokens(app: DaemonHost) {
  try {
    return app.state.tokens.read();
  } catch {
    return null;
  }
}
