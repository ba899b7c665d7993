import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Simulator } from '../../src/simulator/index.js';

/** Writes a docsync config for `sim` into `dir` and returns its path. */
export function writeCliConfig(
  dir: string,
  sim: Simulator,
  overrides: Record<string, unknown> = {},
): string {
  const file = path.join(dir, 'docsync.json');
  const config = {
    service: {
      baseUrl: sim.apiUrl,
      webUrl: sim.webUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      redirectUri: 'http://127.0.0.1:0/callback',
    },
    store: { root: path.join(dir, 'documents') },
    state: { path: path.join(dir, 'state', 'docsync.db') },
    webhook: { enabled: false },
    status: { enabled: false },
    log: { level: 'warn' },
    ...overrides,
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}
