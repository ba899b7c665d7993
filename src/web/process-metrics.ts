/**
 * Node's process metrics on docsync's registry, under the names every Node.js exporter uses
 * (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`, `nodejs_eventloop_lag_p99_seconds`):
 * prom-client's default metrics without a prefix. Shared dashboards and alert rules query those
 * names, and Prometheus's own `job` and `instance` labels already tell one daemon from another;
 * a `docsync_` prefix would only make every one of them need editing.
 *
 * The event-loop delay is measured here rather than by prom-client. Node's
 * `monitorEventLoopDelay` histogram records the time between two ticks of its timer, that is the
 * timer's interval plus the delay, and prom-client publishes it as it is: sampled every 200 ms,
 * an idle daemon read a lag of 0.2 s, which would fire any alert. We publish the delay alone.
 * The interval stays at 200 ms: prom-client's 10 ms woke an idle daemon 100 times a second, most
 * of its idle CPU (docs/benchmarks.md), and the stalls that matter here (a webhook must
 * be answered within a second) last far longer than 200 ms.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';

/** How often the event-loop delay is sampled. */
const EVENT_LOOP_SAMPLE_MS = 200;

/** prom-client's own sampler cannot be turned off: its timer fires once in ~25 days instead. */
const PROM_CLIENT_SAMPLE_MS = 2 ** 31 - 1;

/**
 * prom-client's counts of handles and resources, by type and in all, list every one of them at
 * each scrape, and the folder watcher holds one per folder: at firm size that makes each
 * scrape hold the event loop. Not published: docsync's own metrics say what the watcher holds.
 */
const PER_HANDLE = [
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
];

const LAG = 'nodejs_eventloop_lag_seconds';
const LAG_STATS = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const;
type LagStat = (typeof LAG_STATS)[number];
const lagStatName = (stat: LagStat) => `nodejs_eventloop_lag_${stat}_seconds`;

export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({
    register: registry,
    eventLoopMonitoringPrecision: PROM_CLIENT_SAMPLE_MS,
  });
  for (const name of [LAG, ...LAG_STATS.map(lagStatName), ...PER_HANDLE]) {
    registry.removeSingleMetric(name);
  }
  registerEventLoopDelay(registry);
}

function registerEventLoopDelay(registry: Registry): void {
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_SAMPLE_MS });
  histogram.enable();
  const intervalNs = EVENT_LOOP_SAMPLE_MS * 1e6;
  const delaySeconds = (ns: number) => Math.max(0, ns - intervalNs) / 1e9;
  const stats = new Map<LagStat, Gauge>();
  // Registered before the statistics it sets: a scrape reads the metrics in order, and this
  // collect fills them all from one look at the histogram (as prom-client's own does).
  new Gauge({
    name: LAG,
    help: 'Lag of event loop in seconds (the wait of a setImmediate at the previous scrape).',
    registers: [registry],
    collect() {
      const started = process.hrtime.bigint();
      setImmediate(() => this.set(Number(process.hrtime.bigint() - started) / 1e9));
      // Two scrapes within one interval: nothing new was sampled, the last values stand.
      if (histogram.count === 0) return;
      const values: Record<LagStat, number> = {
        min: delaySeconds(histogram.min),
        max: delaySeconds(histogram.max),
        mean: delaySeconds(histogram.mean),
        // A spread does not move with the interval every sample includes.
        stddev: histogram.stddev / 1e9,
        p50: delaySeconds(histogram.percentile(50)),
        p90: delaySeconds(histogram.percentile(90)),
        p99: delaySeconds(histogram.percentile(99)),
      };
      for (const [stat, gauge] of stats) gauge.set(values[stat]);
      histogram.reset();
    },
  });
  for (const stat of LAG_STATS) {
    stats.set(
      stat,
      new Gauge({
        name: lagStatName(stat),
        help: `The ${stat} of the event loop's delays since the previous scrape, in seconds.`,
        registers: [registry],
      }),
    );
  }
}
