import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:fast`, between edits: the pure tables, the simulator, the sync scenarios run
 * in-process against it, the fuzzing of webhook bodies and a few seeds of the deterministic
 * simulation, the mutants catalogue's check; no build, no child process, no browser. `npm test` runs all of these and the rest
 * (docs/development.md says which to run when).
 */
export default defineConfig({
  test: {
    name: 'fast',
    maxWorkers: Math.max(2, availableParallelism() * 2),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    include: [
      'test/unit/**/*.test.ts',
      'test/simulator/**/*.test.ts',
      'test/scenarios/**/*.test.ts',
      'test/fuzz/webhook-bodies.test.ts',
      'test/simulation/simulation.test.ts',
      'test/mutants/catalogue.test.ts',
    ],
    exclude: [
      // A child process of the built CLI: killed mid-run, or run as another user.
      'test/scenarios/crash.test.ts',
      'test/scenarios/crash-replace.test.ts',
      'test/scenarios/operator-trash.test.ts',
      // `docsync simulator` as a user starts it.
      'test/simulator/cli.test.ts',
      // Real settle waits of `--once`.
      'test/scenarios/once-settles.test.ts',
    ],
  },
});
