/**
 * Node's process metrics as a Prometheus server reads them from `/metrics`: under the standard
 * names (no doubled `process_` prefix), and an event-loop lag that reads what the loop really
 * waited, not the 200 ms sampling interval, on a real daemon at rest.
 */
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/web/metrics.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { firstSyncDone, useDaemonProcesses } from '../helpers/daemon-process.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('process metrics', () => {
  it('use the names every Node.js exporter uses, beside docsync_* for docsync own', async () => {
    const metrics = parsePrometheusText(await new Metrics({ processMetrics: true }).text());
    const names = new Set(metrics.samples.map((s) => s.name));
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'docsync_queue_depth',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(metrics.types.get('process_cpu_seconds_total')).toBe('counter');
    const doubled = [...names].filter((n) => /process_process|^docsync_(process|nodejs)_/.test(n));
    expect(doubled).toEqual([]);
    // Counting them lists every handle, one per watched folder: a scrape held the loop for it.
    expect([...names].filter((n) => /^nodejs_active_(handles|resources)/.test(n))).toEqual([]);
  });

  it('read an idle daemon event-loop lag in milliseconds, not the 0.2 s sampling interval', async () => {
    const sim = await startSim({ seed: 'demo' });
    const config = writeCliConfig(tempDir(), sim, {
      log: { level: 'info' },
      schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
      status: { enabled: true, listen: '127.0.0.1:0' },
    });
    const daemon = startDaemon(config, { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() });
    await daemon.started;
    const statusUrl = /"url":"([^"]+)","msg":"status page listening"/.exec(daemon.output())![1]!;
    // Idle: the start round is over and nothing is scheduled.
    await firstSyncDone(`${statusUrl}/healthz`);
    const scrape = async () =>
      parsePrometheusText(await (await fetch(`${statusUrl}/metrics`)).text());
    await scrape(); // starts a fresh window of samples
    await sleep(2000);
    const lag = await scrape();
    for (const stat of ['p50', 'mean', 'min']) {
      const seconds = lag.value(`nodejs_eventloop_lag_${stat}_seconds`);
      // Before: every reading was at least the 0.2 s interval.
      expect(seconds, stat).toBeGreaterThanOrEqual(0);
      expect(seconds, stat).toBeLessThan(0.02);
    }
    expect(lag.value('nodejs_eventloop_lag_seconds')).toBeLessThan(0.05);
  });
});
