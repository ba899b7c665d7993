import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real servers and child processes; give them room on a 2-core CI box.
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
