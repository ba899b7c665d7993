import { defineConfig } from 'vitest/config';

/** `npm run simulate`: the many-seed runner alone, which `npm test` does not include. */
export default defineConfig({
  test: {
    include: ['test/simulation/simulate.run.ts'],
    hookTimeout: 20_000,
  },
});
