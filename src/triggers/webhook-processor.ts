/**
 * Works on stored webhook events after their answer: one at a time, in arrival order, so two
 * targeted syncs started by the receiver never race each other (the engine may still queue the
 * work and return early if it wants more parallelism). The outcome goes to the event's row: done,
 * or one failed attempt more, retried after `retryDelayMs` while the repo keeps it `received`.
 * Nothing here throws to the caller: a failing callback or database is logged, and the daemon
 * keeps running unless `onFailure` decides the state can no longer be written.
 */
import type { Logger } from '../log/create-logger.js';
import type { StateStore } from '../state/state-store.js';
import type { Metrics } from '../web/metrics.js';
import { type OnDocumentChange, toDocumentChangeEvent } from './webhook-event.js';

export interface WebhookProcessorDeps {
  readonly state: StateStore;
  readonly onEvent: OnDocumentChange;
  readonly logger: Logger;
  readonly metrics?: Metrics | undefined;
  readonly retryDelayMs: number;
  readonly now: () => number;
  /** Hears a failure of the bookkeeping after it was logged (the receiver picks state failures). */
  readonly onFailure?: (error: unknown) => void;
}

export class WebhookProcessor {
  readonly #deps: WebhookProcessorDeps;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #closing = new AbortController();
  #running: Promise<void> | null = null;

  constructor(deps: WebhookProcessorDeps) {
    this.#deps = deps;
  }

  /** Queues a stored event; an event already queued, or any event after close, is ignored. */
  offer(eventId: string): void {
    if (this.#closing.signal.aborted || this.#queued.has(eventId)) return;
    this.#queued.add(eventId);
    this.#queue.push(eventId);
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
    });
  }

  /** Stops taking events, aborts the running one and waits for it; queued ones stay pending. */
  async close(): Promise<void> {
    this.#closing.abort();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await this.#running;
  }

  async #drain(): Promise<void> {
    for (let id = this.#queue.shift(); id !== undefined; id = this.#queue.shift()) {
      this.#queued.delete(id);
      if (this.#closing.signal.aborted) return;
      try {
        await this.#process(id);
      } catch (error) {
        this.#deps.logger.error({ err: error, eventId: id }, 'webhook event bookkeeping failed');
        this.#deps.onFailure?.(error);
      }
    }
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
      if (this.#closing.signal.aborted) {
        log.info('webhook event interrupted by shutdown; it is offered again at the next start');
        return;
      }
      state.webhookEvents.markFailed(eventId, errorText(error), this.#deps.now());
      metrics?.webhookEvent('failed');
      const retry = state.webhookEvents.get(eventId)?.state === 'received';
      log.warn({ err: error, attempt: event.attempt, retry }, 'webhook event failed');
      if (retry) this.#retryLater(eventId);
      return;
    }
    state.webhookEvents.markDone(eventId, this.#deps.now());
    metrics?.webhookEvent('processed');
    log.debug('webhook event done');
  }

  #retryLater(eventId: string): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.offer(eventId);
    }, this.#deps.retryDelayMs);
    timer.unref();
    this.#timers.add(timer);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
