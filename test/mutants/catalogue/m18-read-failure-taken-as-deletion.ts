import type { Mutant } from '../mutant.js';

export default {
  id: 'm18-read-failure-taken-as-deletion',
  file: 'src/engine/verify-deletions.ts',
  bugClass: 'a claim of the service trusted unchecked',
  what: 'a details request that fails (5xx, reset) is read as the 404 of a deleted document',
  relatedTests: ['test/scenarios/absence-is-not-deletion.test.ts', 'test/scenarios/faults.test.ts'],
  find: `        if (isGone(error)) deleted.add(id);
        else unsure = true;`,
  replace: `        deleted.add(id);`,
} satisfies Mutant;
