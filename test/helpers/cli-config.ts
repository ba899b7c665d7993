import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Simulator } from '../../src/simulator/index.js';

/**
 * Writes a docsync config for `sim` into `dir` and returns its path. `overrides` replace whole
 * sections, except `service`, whose keys are added to the simulator's.
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
    ...sections,
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}
