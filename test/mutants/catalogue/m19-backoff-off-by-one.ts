import type { Mutant } from '../mutant.js';

export default {
  id: 'm19-backoff-off-by-one',
  file: 'src/domain/backoff.ts',
  bugClass: 'an off-by-one in a backoff',
  what: 'whatever failed waits one doubling less than it should: an item in error waits a minute after its first two failures, a webhook event five seconds',
  relatedTests: [
    'test/unit/backoff.test.ts',
    'test/scenarios/refused-files.test.ts',
    'test/integration/backoff.test.ts',
  ],
  find: `  const exponent = Math.max(0, Math.floor(attempts) - 1);`,
  replace: `  const exponent = Math.max(0, Math.floor(attempts) - 2);`,
} satisfies Mutant;
