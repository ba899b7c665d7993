/**
 * Works on stored webhook events after their answer. Events of different entities are worked on
 * side by side, up to `concurrency` at once, so one event waiting for its entity's long sync
 * holds back no other entity's; each entity's events go one at a time, in arrival order.
 *
 * An event is done only when its work succeeded (`onEvent` resolved: the sync it asked for ran).
 * A failure counts an attempt and the event is offered again after a backoff
 * (`EVENT_BACKOFF`, domain/backoff.ts), kept in its row so a restart honours it, up to `maxAttempts`.
 * Work interrupted by shutdown (the receiver closing, `SyncNotDoneError('SYNC_STOPPED')`, or a
 * request the stopping queue refused or cut: the daemon stops its queue before the receiver
 * has closed) counts nothing: the event stays pending for the next start.
 *
 * Nothing here throws to the caller: a failing callback or database is logged, and the daemon
 * keeps running unless `onFailure` decides the state can no longer be written.
 */

import { backoff, EVENT_BACKOFF } from '../domain/backoff.js';
import { RunStoppedError, SyncNotDoneError } from '../domain/errors.js';
import type { Logger } from '../log/create-logger.js';
import type { StateStore } from '../state/state-store.js';
import { MAX_EVENT_ATTEMPTS } from '../state/webhook-event-repo.js';
import type { Metrics } from '../web/metrics.js';
import { type OnDocumentChange, toDocumentChangeEvent } from './webhook-event.js';

export interface WebhookProcessorDeps {
  readonly state: StateStore;
  readonly onEvent: OnDocumentChange;
  readonly logger: Logger;
  readonly metrics?: Metrics | undefined;
  /** The wait after the first failure, doubling after each one after it. */
  readonly retryDelayMs: number;
  /** Attempts before an event is left failed (default MAX_EVENT_ATTEMPTS). */
  readonly maxAttempts?: number;
  /** Entities worked on at once (default ENTITIES_AT_ONCE). */
  readonly concurrency?: number;
  readonly now: () => number;
  /** Hears a failure of the bookkeeping after it was logged (the receiver picks state failures). */
  readonly onFailure?: (error: unknown) => void;
}

/**
 * Entities worked on at once by default. Working on an event is mostly waiting for its entity's
 * sync, and the work scheduler's slots bound the syncs that run, so this only bounds
 * the waiting. It was 8, as many as the urgent slots: during 2,000 files dropped into 40 folders,
 * the service's webhooks about our own uploads took all 8, each waiting for its entity's long
 * sync, and the webhook about another entity's change waited behind them for tens of seconds.
 */
const ENTITIES_AT_ONCE = 64;

export class WebhookProcessor {
  readonly #deps: WebhookProcessorDeps;
  /** Events waiting, by the entity they name, in arrival order. */
  readonly #byEntity = new Map<string, string[]>();
  readonly #queued = new Set<string>();
  /** Entities being worked on, each by one drain. */
  readonly #draining = new Map<string, Promise<void>>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Events waiting for their retry time, each with one timer. */
  readonly #later = new Set<string>();
  readonly #closing = new AbortController();

  constructor(deps: WebhookProcessorDeps) {
    this.#deps = deps;
  }

  /**
   * Queues a stored event behind its entity's earlier ones; an event already queued, one whose
   * retry time has not come (it is offered again then), or any event after close, is ignored.
   */
  offer(eventId: string): void {
    if (this.#closing.signal.aborted || this.#queued.has(eventId)) return;
    const stored = this.#read(eventId);
    if (stored?.state !== 'received') return;
    const wait = (stored.nextAttemptAt ?? 0) - this.#deps.now();
    if (wait > 0) {
      this.#offerLater(eventId, wait);
      return;
    }
    this.#queued.add(eventId);
    const queue = this.#byEntity.get(stored.entityId) ?? [];
    queue.push(eventId);
    this.#byEntity.set(stored.entityId, queue);
    this.#startMore();
  }

  /** Stops taking events, aborts the running ones and waits for them; queued ones stay pending. */
  async close(): Promise<void> {
    this.#closing.abort();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#draining.values()]);
  }

  /** Starts a drain for each entity with events waiting, as long as there is room. */
  #startMore(): void {
    const limit = this.#deps.concurrency ?? ENTITIES_AT_ONCE;
    for (const entityId of this.#byEntity.keys()) {
      if (this.#draining.size >= limit) return;
      if (this.#draining.has(entityId)) continue;
      const drain = this.#drain(entityId).finally(() => {
        this.#draining.delete(entityId);
        this.#startMore();
      });
      this.#draining.set(entityId, drain);
    }
  }

  async #drain(entityId: string): Promise<void> {
    const queue = this.#byEntity.get(entityId)!;
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      this.#queued.delete(id);
      if (this.#closing.signal.aborted) break;
      try {
        await this.#process(id);
      } catch (error) {
        this.#deps.logger.error({ err: error, eventId: id }, 'webhook event bookkeeping failed');
        this.#deps.onFailure?.(error);
      }
    }
    if (queue.length === 0) this.#byEntity.delete(entityId);
  }

  async #process(eventId: string): Promise<void> {
    const { state, logger, metrics } = this.#deps;
    const stored = state.webhookEvents.get(eventId);
    if (stored?.state !== 'received') return;
    const event = toDocumentChangeEvent(stored);
    const log = logger.child({ eventId, entityId: event.entityId, subType: event.subType });
    try {
      await this.#deps.onEvent(event, { signal: this.#closing.signal });
    } catch (error) {
      if (this.#closing.signal.aborted || isStopped(error)) {
        log.info('webhook event interrupted by shutdown; it is offered again at the next start');
        return;
      }
      const now = this.#deps.now();
      const delay = backoff(event.attempt, { ...EVENT_BACKOFF, firstMs: this.#deps.retryDelayMs });
      const max = this.#deps.maxAttempts ?? MAX_EVENT_ATTEMPTS;
      state.webhookEvents.markFailed(eventId, errorText(error), now, now + delay, max);
      metrics?.webhookEvent('failed');
      const retry = state.webhookEvents.get(eventId)?.state === 'received';
      log.warn(
        { err: error, attempt: event.attempt, retry, retryInMs: retry ? delay : null },
        retry ? 'webhook event failed; tried again later' : 'webhook event failed; given up',
      );
      if (retry) this.#offerLater(eventId, delay);
      return;
    }
    state.webhookEvents.markDone(eventId, this.#deps.now());
    metrics?.webhookEvent('processed');
    log.debug('webhook event done');
  }

  #offerLater(eventId: string, delayMs: number): void {
    if (this.#later.has(eventId)) return;
    this.#later.add(eventId);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#later.delete(eventId);
      this.offer(eventId);
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  #read(eventId: string) {
    try {
      return this.#deps.state.webhookEvents.get(eventId);
    } catch (error) {
      this.#deps.logger.error({ err: error, eventId }, 'webhook event bookkeeping failed');
      this.#deps.onFailure?.(error);
      return null;
    }
  }
}

function isStopped(error: unknown): boolean {
  return (
    (error instanceof SyncNotDoneError && error.code === 'SYNC_STOPPED') ||
    error instanceof RunStoppedError
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
