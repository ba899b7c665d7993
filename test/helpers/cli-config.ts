import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Simulator } from '../../src/simulator/index.js';

/**
 * Writes a docsync config for `sim` into `dir` and returns its path. `overrides` replace whole
 * sections, except `service`, whose keys are added to the simulator's. Against a simulator
 * without a rate limit requests go unthrottled (at docsync's default of 10 a second, every first
 * sync of the demo firm took 8 s of a test's time); against one with a limit, at docsync's
 * default rate, as a firm's would. A test of the rate sets `queue` itself.
 */
export function writeCliConfig(
  dir: string,
  sim: Simulator,
  overrides: Record<string, unknown> = {},
): string {
  const file = path.join(dir, 'docsync.json');
  const { service, ...sections } = overrides;
  const config = {
    service: {
      baseUrl: sim.apiUrl,
      webUrl: sim.webUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      redirectUri: 'http://127.0.0.1:0/callback',
      ...(service as Record<string, unknown> | undefined),
    },
    store: { root: path.join(dir, 'documents') },
    state: { path: path.join(dir, 'state', 'docsync.db') },
    webhook: { enabled: false },
    status: { enabled: false },
    log: { level: 'warn' },
    ...(unlimited(sim) ? { queue: { requestsPerSecond: 1000, concurrency: 4 } } : {}),
    ...sections,
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

const unlimited = (sim: Simulator) => {
  const limit = sim.admin.rateLimit();
  return limit === 0 || limit === Number.POSITIVE_INFINITY;
};

/**
 * Adds `queue` (1,000 requests a second) to a configuration `docsync init` wrote, for a simulator
 * started with `--rate-limit 0`: at docsync's default pace the first sync of the demo firm takes
 * eight seconds, and the steps that run it as a user would are not about the pace.
 */
export function unthrottleWritten(file: string): void {
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (config.queue !== undefined) throw new Error(`${file} has a queue of its own`);
  writeFileSync(file, JSON.stringify({ ...config, queue: { requestsPerSecond: 1000 } }, null, 2));
}
