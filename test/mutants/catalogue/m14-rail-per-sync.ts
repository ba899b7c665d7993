import type { Mutant } from '../mutant.js';

export default {
  id: 'm14-rail-per-sync',
  file: 'src/domain/check-safety.ts',
  bugClass: 'a rail judged per sync instead of per entity/whole',
  what: "the delete rails count only this sync's deletes, not those the window let through or those still in their hold",
  relatedTests: [
    'test/unit/check-safety.test.ts',
    'test/scenarios/rails.test.ts',
    'test/integration/daemon-mass-delete.test.ts',
    'test/simulation/regressions.test.ts',
  ],
  find: `    const count = planned + (window?.inHold?.[side] ?? 0) + done;`,
  replace: `    const count = planned;`,
} satisfies Mutant;
