/**
 * docsync's Prometheus metrics, on a registry of its own (not prom-client's global one), so two
 * daemons in one test process never share counters and nothing a library registers leaks in.
 * The engine, the client's `onResponse` hook, the webhook receiver and the status server call
 * in here; `/metrics` renders it.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { GovernorView } from '../domain/request-governor.js';
import { ATTENTION_KINDS, type AttentionCounts } from './attention.js';
import { registerProcessMetrics } from './process-metrics.js';
import type { WorkStatus } from './runtime-status.js';

export type WebhookResult =
  | 'accepted'
  | 'duplicate'
  | 'bad-signature'
  | 'stale-date'
  | 'malformed'
  | 'oversized'
  /** An event type docsync does not know: answered 200 and ignored. */
  | 'ignored'
  | 'processed'
  | 'failed';

export type WatcherMode = 'events' | 'scanning';

/** What the client's `onResponse` hook hands over (src/remote/service-http.ts). */
export interface ServiceResponse {
  readonly route: string;
  readonly status: number | 'network';
}

export interface MetricsOptions {
  /** Also export Node's process metrics (memory, CPU, event loop) under their standard names. */
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
  readonly #laneWaiting;
  readonly #laneRequests;
  readonly #laneWaited;
  readonly #coverage;
  readonly #stalest;
  readonly #roundLeft;
  readonly #roundEntities;
  readonly #attention;
  /** Where the request governor's figures are read at each scrape (`watchGovernor`). */
  #governor: (() => GovernorView) | null = null;
  /** 429s already added to the counter. */
  #throttlesSeen = 0;
  /** Counters the scheduler keeps as totals: what was already added, per lane. */
  readonly #laneSeen = new Map<string, { started: number; waitedMs: number }>();

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
    this.#attention = new Gauge({
      name: 'docsync_attention_items',
      help: 'What waits for a person, by kind (held deletes, conflicts, items in error, ...).',
      labelNames: ['kind'] as const,
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
    this.#laneWaiting = new Gauge({
      name: 'docsync_lane_waiting',
      help: 'Work waiting per lane: entity syncs and requests in the rate-limited queue.',
      labelNames: ['lane', 'what'] as const,
      registers,
    });
    this.#laneRequests = new Counter({
      name: 'docsync_lane_requests_total',
      help: 'Requests sent to the service, by lane.',
      labelNames: ['lane'] as const,
      registers,
    });
    this.#laneWaited = new Counter({
      name: 'docsync_lane_wait_seconds_total',
      help: 'Time requests waited in the rate-limited queue, by lane.',
      labelNames: ['lane'] as const,
      registers,
    });
    this.#coverage = new Gauge({
      name: 'docsync_coverage_period_seconds',
      help: 'The longest an entity goes unlisted at the budget polling has.',
      registers,
    });
    this.#stalest = new Gauge({
      name: 'docsync_stalest_entity_seconds',
      help: 'Time since the least recently synced entity was last synced.',
      registers,
    });
    this.#roundLeft = new Gauge({
      name: 'docsync_poll_round_entities_left',
      help: 'Entities the poll round under way has still to list (0: no round).',
      registers,
    });
    this.#roundEntities = new Gauge({
      name: 'docsync_poll_round_entities',
      help: 'Entities of the poll round under way, listed or not (0: no round).',
      registers,
    });
    const governor = () => this.#governor?.() ?? null;
    new Gauge({
      name: 'docsync_request_rate_allowed',
      help: 'Requests per second the governor allows now: queue.requestsPerSecond, lowered by 429s until it climbs back.',
      registers,
      collect() {
        const view = governor();
        if (view) this.set(view.rate);
      },
    });
    const seen = (n: number) => {
      const added = n - this.#throttlesSeen;
      this.#throttlesSeen = n;
      return added;
    };
    new Counter({
      name: 'docsync_rate_limited_total',
      help: 'Requests the service answered 429 (too many requests).',
      registers,
      collect() {
        const view = governor();
        if (view) this.inc(seen(view.throttles));
      },
    });
    if (options.processMetrics) registerProcessMetrics(this.registry);
  }

  /** The request governor whose rate and 429s /metrics shows (read at each scrape). */
  watchGovernor(view: () => GovernorView): void {
    this.#governor = view;
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

  /** The scheduler's lanes, round and coverage; `stalestMs` from the state's cursors. */
  setWork(work: WorkStatus, stalestMs: number | null): void {
    for (const [lane, status] of Object.entries(work.lanes)) {
      this.#laneWaiting.set({ lane, what: 'syncs' }, status.syncsWaiting);
      this.#laneWaiting.set({ lane, what: 'requests' }, status.requestsWaiting);
      const seen = this.#laneSeen.get(lane) ?? { started: 0, waitedMs: 0 };
      this.#laneRequests.inc({ lane }, status.requestsStarted - seen.started);
      this.#laneWaited.inc({ lane }, (status.requestsWaitedMs - seen.waitedMs) / 1000);
      this.#laneSeen.set(lane, {
        started: status.requestsStarted,
        waitedMs: status.requestsWaitedMs,
      });
    }
    this.#coverage.set(work.coveragePeriodMs / 1000);
    if (stalestMs !== null) this.#stalest.set(stalestMs / 1000);
    this.#roundLeft.set(work.round?.left ?? 0);
    this.#roundEntities.set(work.round?.total ?? 0);
  }

  /** Every kind, zero included, so an alert can be written on any of them from the start. */
  setAttention(counts: AttentionCounts): void {
    for (const kind of ATTENTION_KINDS) this.#attention.set({ kind }, counts[kind]);
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
