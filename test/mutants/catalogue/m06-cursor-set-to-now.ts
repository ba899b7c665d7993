import type { Mutant } from '../mutant.js';

export default {
  id: 'm06-cursor-set-to-now',
  file: 'src/engine/execute-entity.ts',
  bugClass: 'a cursor set to "now"',
  what: "after a sync the cursor is set to the local clock's now, not to the newest listed document in step",
  relatedTests: [
    'test/unit/timestamps.test.ts',
    'test/scenarios/faults.test.ts',
    'test/scenarios/idempotence.test.ts',
    'test/scenarios/remote-actions.test.ts',
  ],
  find: `    const cursor = this.job.plan.held ? null : nextCursor(this.job, notInStep);`,
  replace: `    const cursor = this.job.plan.held ? null : new Date(deps.now()).toISOString();`,
} satisfies Mutant;
