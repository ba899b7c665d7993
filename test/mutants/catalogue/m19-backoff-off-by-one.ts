import type { Mutant } from '../mutant.js';

export default {
  id: 'm19-backoff-off-by-one',
  file: 'src/domain/next-attempt-delay.ts',
  bugClass: 'an off-by-one in a backoff',
  what: 'an item in error waits one doubling less than it should: the first two failures both wait a minute',
  relatedTests: [
    'test/unit/next-attempt-delay.test.ts',
    'test/scenarios/refused-files.test.ts',
    'test/integration/backoff.test.ts',
  ],
  find: `  const exponent = Math.max(0, Math.floor(attempts) - 1);`,
  replace: `  const exponent = Math.max(0, Math.floor(attempts) - 2);`,
} satisfies Mutant;
