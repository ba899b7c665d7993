import { defineConfig } from 'vitest/config';

/**
 * Two projects: every test against the simulator's default reading of the service (api.md), and
 * the sync scenarios once more against the public pages' reading (`--profile public-docs`:
 * trusts named by contact, company document details without a change time, `/cas` on trust
 * documents only, webhook ids without dashes, OAuth-style error bodies). The scenario harness
 * (helpers/sync-harness.ts) reads DOCSYNC_SIM_PROFILE.
 */
export default defineConfig({
  test: {
    // Integration tests start real servers and child processes; give them room on a 2-core CI box.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: { name: 'api', include: ['test/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'public-docs',
          include: ['test/scenarios/**/*.test.ts'],
          env: { DOCSYNC_SIM_PROFILE: 'public-docs' },
        },
      },
    ],
  },
});
