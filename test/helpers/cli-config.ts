import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Simulator } from '../../src/simulator/index.js';

/**
 * The rate for a simulator without a limit: a first sync of the demo firm in a third of a second
 * (at docsync's default of 10 a second it took 8 s of a test's time), and not so high that the
 * daemon's sweep of the unlodged list (its share of the rate) reads the list every few
 * milliseconds, which a busy machine pays for in every daemon test.
 */
export const UNTHROTTLED = { requestsPerSecond: 200, concurrency: 4 } as const;

/**
 * Writes a docsync config for `sim` into `dir` and returns its path. `overrides` replace whole
 * sections, except `service`, whose keys are added to the simulator's. Against a simulator
 * without a rate limit requests go UNTHROTTLED; against one with a limit, at docsync's default
 * rate, as a firm's would. A test of the rate sets `queue` itself.
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
      // As `docsync init --for simulator` writes it: the simulator's link host is plain http on
      // loopback, which docsync fetches only from an origin listed here.
      linkHosts: [sim.linkUrl],
      ...(service as Record<string, unknown> | undefined),
    },
    store: { root: path.join(dir, 'documents') },
    state: { path: path.join(dir, 'state', 'docsync.db') },
    webhook: { enabled: false },
    status: { enabled: false },
    log: { level: 'warn' },
    ...(unlimited(sim) ? { queue: UNTHROTTLED } : {}),
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
 * Adds `queue` (UNTHROTTLED) to a configuration `docsync init` wrote, for a simulator started
 * with `--rate-limit 0`: at docsync's default pace the first sync of the demo firm takes eight
 * seconds, and the steps that run it as a user would are not about the pace.
 */
export function unthrottleWritten(file: string): void {
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (config.queue !== undefined) throw new Error(`${file} has a queue of its own`);
  writeFileSync(file, JSON.stringify({ ...config, queue: UNTHROTTLED }, null, 2));
}
