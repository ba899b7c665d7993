/**
 * docsync's Prometheus metrics, on a registry of its own (not prom-client's global one), so two
 * daemons in one test process never share counters and nothing a library registers leaks in.
 * The engine, the client's `onResponse` hook, the webhook receiver and the status server call
 * in here; `/metrics` renders it.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

export type WebhookResult =
  | 'accepted'
  | 'duplicate'
  | 'bad-signature'
  | 'stale-date'
  | 'malformed'
  | 'oversized'
  | 'processed'
  | 'failed';

export type WatcherMode = 'events' | 'scanning';

/** How often the event-loop lag is sampled (`docsync_process_nodejs_eventloop_lag_*`). */
export const EVENT_LOOP_SAMPLE_MS = 200;

/** What the client's `onResponse` hook hands over (src/remote/service-http.ts). */
export interface ServiceResponse {
  readonly route: string;
  readonly status: number | 'network';
}

export interface MetricsOptions {
  /** Also export Node's process metrics (memory, CPU, event loop) as `docsync_process_*`. */
  readonly processMetrics?: boolean;
}

export class Metrics {
  readonly registry = new Registry();
  readonly #cycles;
  readonly #requests;
  readonly #queueDepth;
  readonly #conflicts;
  readonly #railTrips;
  readonly #webhookEvents;
  readonly #watcherMode;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    this.#cycles = new Counter({
      name: 'docsync_cycles_total',
      help: 'Sync cycles finished, by result.',
      labelNames: ['result'] as const,
      registers,
    });
    this.#requests = new Counter({
      name: 'docsync_service_requests_total',
      help: 'Requests to the compliance service, by route and status.',
      labelNames: ['route', 'status'] as const,
      registers,
    });
    this.#queueDepth = new Gauge({
      name: 'docsync_queue_depth',
      help: 'Requests waiting in the rate-limited queue.',
      registers,
    });
    this.#conflicts = new Gauge({
      name: 'docsync_conflicts',
      help: 'Conflict copies recorded in the state database.',
      registers,
    });
    this.#railTrips = new Counter({
      name: 'docsync_rail_trips_total',
      help: 'Cycles stopped by a safety rail.',
      registers,
    });
    this.#webhookEvents = new Counter({
      name: 'docsync_webhook_events_total',
      help: 'Webhook messages, by what became of them.',
      labelNames: ['result'] as const,
      registers,
    });
    this.#watcherMode = new Gauge({
      name: 'docsync_watcher_mode',
      help: 'The folder watcher mode: 1 for the current one.',
      labelNames: ['mode'] as const,
      registers,
    });
    if (options.processMetrics) {
      collectDefaultMetrics({
        register: this.registry,
        prefix: 'docsync_process_',
        // The event-loop lag histogram samples on a timer; prom-client's default of 10 ms woke an
        // idle daemon 100 times a second, most of its idle CPU (bench 5: ~0.5 % of a core).
        // Stalls that matter here (a webhook must be answered within a second) last far longer.
        eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
      });
    }
  }

  /** A cycle ended; `result` as the cycle table records it (e.g. ok, failed, rail). */
  cycleFinished(result: string): void {
    this.#cycles.inc({ result });
  }

  /** Suits the client's `onResponse` hook as it is. */
  serviceResponse(info: ServiceResponse): void {
    this.#requests.inc({ route: info.route, status: String(info.status) });
  }

  setQueueDepth(depth: number): void {
    this.#queueDepth.set(depth);
  }

  setConflicts(count: number): void {
    this.#conflicts.set(count);
  }

  railTripped(): void {
    this.#railTrips.inc();
  }

  webhookEvent(result: WebhookResult): void {
    this.#webhookEvents.inc({ result });
  }

  setWatcherMode(mode: WatcherMode): void {
    this.#watcherMode.set({ mode: 'events' }, mode === 'events' ? 1 : 0);
    this.#watcherMode.set({ mode: 'scanning' }, mode === 'scanning' ? 1 : 0);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
