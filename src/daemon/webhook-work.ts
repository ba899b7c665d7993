/**
 * A webhook event is an observation on its entity's work row (state/entity-work-repo.ts), made in
 * the transaction that records it (`StateStore.receiveWebhookEvent`), and it settles with that
 * row where the scheduler settles it: done when a sync of the entity that started after it
 * succeeded, an attempt counted when one failed (the row's own retry brings the next try), nothing
 * when the daemon stopped (the row and the event wait for the next start). So the event needs no
 * queue of its own: the work scheduler's lanes, slots and retries are the event's.
 *
 * What is left here: the settlement's log lines and metrics (`settlingWork`), and an event whose
 * entity docsync does not know yet (`WebhookIntake`), which makes it read the entity list again.
 */
import { backoff, EVENT_BACKOFF } from '../domain/backoff.js';
import type { Clock } from '../domain/clock.js';
import { RunStoppedError } from '../domain/errors.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { Logger } from '../log/create-logger.js';
import { isStateFailure } from '../state/state-failure.js';
import type { SettledSync, StateStore } from '../state/state-store.js';
import type { DocumentChangeEvent } from '../triggers/webhook-event.js';
import type { CycleRequest, SchedulerHost, SyncOutcome } from './work-scheduler.js';

/** What the metrics count of an event's work. */
export type EventResult = 'processed' | 'failed';

export interface WebhookWorkDeps {
  readonly state: StateStore;
  readonly logger: Logger;
  readonly now: () => number;
  readonly counted?: ((result: EventResult) => void) | undefined;
}

export interface SettlingDeps extends WebhookWorkDeps {
  /**
   * Reads the entity list again. The service may have removed the entity since the change an
   * event tells of: its sync then fails on every try, and only the list says so (forgetting the
   * entity settles its events as moot).
   */
  readonly relist: () => void;
}

/** The scheduler's rows, settled together with the webhook events observed on them. */
export function settlingWork(deps: SettlingDeps): SchedulerHost['work'] {
  const { state } = deps;
  return {
    observe: (owner, observation) => state.work.observe(owner, observation),
    seenSoFar: () => state.work.seenSoFar(),
    all: () => state.work.all(),
    settle: (owner, seen, full) =>
      told(deps, owner, state.settleSync(owner, seen, { kind: 'synced', full }, deps.now()))
        .cleared,
    settleAll: (seen, full) => {
      const done = state.settleEverySync(seen, full, deps.now());
      told(deps, null, { row: null, cleared: true, done, failed: [] });
    },
    failed: (owner, error, dueAfter, seen) => {
      const end = { kind: 'failed', error, dueAfter } as const;
      const settled = told(deps, owner, state.settleSync(owner, seen, end, deps.now()));
      if (settled.failed.length > 0) deps.relist();
      return settled.row;
    },
  };
}

function told(deps: WebhookWorkDeps, owner: OwnerRef | null, settled: SettledSync): SettledSync {
  // Most syncs answer no event (a poll's): no log child for them.
  if (settled.done.length === 0 && settled.failed.length === 0) return settled;
  const log = deps.logger.child({
    component: 'webhook',
    ...(owner ? { owner: ownerKey(owner) } : {}),
  });
  for (const eventId of settled.done) {
    deps.counted?.('processed');
    log.debug({ eventId }, 'webhook event done');
  }
  for (const event of settled.failed) {
    deps.counted?.('failed');
    const retry = event.state === 'received';
    const retryInMs = retry && settled.row ? settled.row.dueAt - deps.now() : null;
    log.warn(
      { eventId: event.eventId, attempt: event.attempts, retry, retryInMs },
      retry ? 'webhook event failed; tried again later' : 'webhook event failed; given up',
    );
  }
  return settled;
}

export interface WebhookIntakeDeps extends WebhookWorkDeps {
  readonly clock: Pick<Clock, 'after'>;
  readonly request: (request: CycleRequest) => Promise<SyncOutcome>;
  /** Reads the entity list again, or joins the reading under way. */
  readonly refreshEntities: () => Promise<unknown>;
  /** A state failure, after it was logged: the daemon stops for it. */
  readonly onStateFailure: (error: unknown) => void;
}

/**
 * Takes each event the receiver recorded, as it is answered or as the last run left it: one of
 * an entity docsync knows is on its row already, and its sync is asked for. One of an entity not
 * known yet (a new company) makes docsync read the entity list again, then is linked to its row,
 * or done when the service does not list it. A list that cannot be read counts an attempt and is
 * read again after the event's backoff.
 */
export class WebhookIntake {
  readonly #deps: WebhookIntakeDeps;
  /** Events waiting for the entity list: being read for (null), or their backoff's timer. */
  readonly #waiting = new Map<string, (() => void) | null>();
  #closed = false;

  constructor(deps: WebhookIntakeDeps) {
    this.#deps = deps;
  }

  take(event: Pick<DocumentChangeEvent, 'eventId'>): void {
    const { eventId } = event;
    if (this.#closed || this.#waiting.has(eventId)) return;
    try {
      const stored = this.#deps.state.webhookEvents.get(eventId);
      if (stored?.state !== 'received') return;
      const wait = (stored.nextAttemptAt ?? 0) - this.#deps.now();
      if (stored.owner) this.#request(stored.owner);
      else if (wait > 0) this.#later(eventId, wait);
      else void this.#link(eventId);
    } catch (error) {
      this.#failed(error);
    }
  }

  close(): void {
    this.#closed = true;
    for (const cancel of this.#waiting.values()) cancel?.();
  }

  async #link(eventId: string): Promise<void> {
    const { state, logger } = this.#deps;
    this.#waiting.set(eventId, null);
    try {
      await this.#deps.refreshEntities();
    } catch (error) {
      this.#waiting.delete(eventId);
      if (!this.#closed && !(error instanceof RunStoppedError)) this.#listUnread(eventId, error);
      return;
    }
    this.#waiting.delete(eventId);
    if (this.#closed) return;
    try {
      const owner = state.linkWebhookEvent(eventId, this.#deps.now());
      if (owner) return this.#request(owner);
      const stored = state.webhookEvents.get(eventId);
      if (stored?.state !== 'received') return;
      logger.warn(
        { eventId, entityId: stored.entityId },
        'a webhook named an entity the service does not list; ignored',
      );
      state.webhookEvents.markDone(eventId, this.#deps.now());
      this.#deps.counted?.('processed');
    } catch (error) {
      this.#failed(error);
    }
  }

  #request(owner: OwnerRef): void {
    void this.#deps.request({ trigger: 'webhook', owner, recorded: true });
  }

  /** The entity list could not be read: the event counts an attempt and waits its backoff. */
  #listUnread(eventId: string, error: unknown): void {
    const { state, logger, now } = this.#deps;
    try {
      const attempt = (state.webhookEvents.get(eventId)?.attempts ?? 0) + 1;
      const delay = backoff(attempt, EVENT_BACKOFF);
      const message = error instanceof Error ? error.message : String(error);
      state.webhookEvents.markFailed(eventId, message, now(), now() + delay);
      this.#deps.counted?.('failed');
      const retry = state.webhookEvents.get(eventId)?.state === 'received';
      logger.warn(
        { err: error, eventId, attempt, retry, retryInMs: retry ? delay : null },
        retry ? 'webhook event failed; tried again later' : 'webhook event failed; given up',
      );
      if (retry) this.#later(eventId, delay);
    } catch (stateError) {
      this.#failed(stateError);
    }
  }

  #later(eventId: string, ms: number): void {
    const cancel = this.#deps.clock.after(
      ms,
      () => {
        this.#waiting.delete(eventId);
        this.take({ eventId });
      },
      false,
    );
    this.#waiting.set(eventId, cancel);
  }

  #failed(error: unknown): void {
    this.#deps.logger.error({ err: error }, 'webhook event bookkeeping failed');
    if (isStateFailure(error)) this.#deps.onStateFailure(error);
  }
}
