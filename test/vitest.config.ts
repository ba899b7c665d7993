import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The scenarios that meet a shape where the public pages' reading of the service differs from
 * api.md's (src/simulator/profile.ts): paths with and without `/cas`, trusts named by contact,
 * company document details without a change time, OAuth-style error bodies. They run once more
 * against `--profile public-docs`; the others (the operator's commands, rails, holds, crashes,
 * locks, the folder's moves) go through the same client calls as these and run once.
 */
const PUBLIC_DOCS_SCENARIOS = [
  'initial-sync',
  'remote-actions',
  'local-actions',
  'conflicts',
  'idempotence',
  'in-doubt-status',
  'faults',
  'crash-replace',
].map((name) => `test/scenarios/${name}.test.ts`);

/**
 * Two projects: every test against the simulator's default reading of the service (api.md), and
 * the scenarios above once more against the public pages' reading (`--profile public-docs`). The
 * scenario harness (helpers/sync-harness.ts) reads DOCSYNC_SIM_PROFILE.
 *
 * Most tests wait (on a simulator, a child process, a folder), so files run side by side in
 * twice as many workers as there are cores; each test has its own ports, folders and database.
 */
export default defineConfig({
  test: {
    maxWorkers: Math.max(2, availableParallelism() * 2),
    // Integration tests start real servers and child processes; give them room on a busy 2-core box.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'api', include: ['test/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'public-docs',
          include: PUBLIC_DOCS_SCENARIOS,
          env: { DOCSYNC_SIM_PROFILE: 'public-docs' },
        },
      },
    ],
  },
});
