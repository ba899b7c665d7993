import type { Mutant } from '../mutant.js';

export default {
  id: 'm05-cursor-past-failed-document',
  file: 'src/engine/execute-entity.ts',
  bugClass: 'a cursor advanced too far',
  what: 'the cursor moves past a listed document whose actions failed (only unreadable details hold it back)',
  relatedTests: [
    'test/unit/timestamps.test.ts',
    'test/scenarios/faults.test.ts',
    'test/scenarios/idempotence.test.ts',
  ],
  find: `    succeeded: !failed.has(id) && !job.detailFailures.has(id),`,
  replace: `    succeeded: !job.detailFailures.has(id),`,
} satisfies Mutant;
