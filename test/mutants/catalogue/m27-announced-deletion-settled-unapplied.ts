import type { Mutant } from '../mutant.js';

export default {
  id: 'm27-announced-deletion-settled-unapplied',
  file: 'src/engine/announced-deletions.ts',
  bugClass: 'an event marked done on failure',
  what: 'a deletion a webhook announced is forgotten after any sync of its entity, applied or not',
  relatedTests: [
    'test/integration/daemon-webhook-durable.test.ts',
    'test/scenarios/remote-actions.test.ts',
    'test/simulation/regressions.test.ts',
  ],
  find: `    return base === null || job.remoteDocs.has(id);`,
  replace: `    return base === null || job.remoteDocs.has(id) || job.detailFailures.size === 0;`,
} satisfies Mutant;
