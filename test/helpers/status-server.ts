/**
 * The status listener on port 0 with the settings most tests do not care about: a 5-minute
 * schedule, `/srv/documents` as the root, the trash for remote deletes, an idle runtime and a
 * silent log. A test passes only what it is about (`status`, `config`, `runtime`, `actions`…).
 */
import type { StateStore } from '../../src/state/state-store.js';
import { Metrics } from '../../src/web/metrics.js';
import type { RuntimeStatus } from '../../src/web/runtime-status.js';
import {
  type StatusServer,
  type StatusServerOptions,
  startStatusServer,
} from '../../src/web/status-server.js';
import { silentLogger } from './webhook-receiver.js';

export const IDLE_RUNTIME: RuntimeStatus = {
  nextCycleAt: null,
  queueDepth: 0,
  requestsPerSecond: 0,
  watcherMode: 'events',
  tokenValid: true,
};

export interface TestStatusServerOptions
  extends Partial<Omit<StatusServerOptions, 'config' | 'state'>> {
  /** Merged into `status` (`listen` defaults to 127.0.0.1 on port 0). */
  readonly status?: Partial<StatusServerOptions['config']['status']>;
  /** Anything else of the configuration, over the defaults. */
  readonly config?: Partial<Omit<StatusServerOptions['config'], 'status'>>;
}

export function startTestStatusServer(
  state: StateStore,
  options: TestStatusServerOptions = {},
): Promise<StatusServer> {
  const { status, config, ...rest } = options;
  return startStatusServer({
    config: {
      status: { enabled: true, listen: { host: '127.0.0.1', port: 0 }, ...status },
      schedule: {
        cron: '*/5 * * * *',
        fullReconcileCron: '30 2 * * *',
        maxPollShare: 1,
        unlodgedSweepShare: 0.05,
        unlodgedSweepSeconds: 30,
      },
      store: { root: '/srv/documents' },
      onRemoteDelete: 'trash',
      ...config,
    },
    state,
    metrics: new Metrics(),
    runtime: () => IDLE_RUNTIME,
    logger: silentLogger(),
    ...rest,
  });
}
