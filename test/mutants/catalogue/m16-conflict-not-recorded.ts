import type { Mutant } from '../mutant.js';

export default {
  id: 'm16-conflict-not-recorded',
  file: 'src/state/state-store.ts',
  bugClass: 'a conflict not recorded',
  what: "the commit that agrees on an action's result drops the conflict it settled (a push over a service user's change or delete, a folder built again over a person's delete)",
  relatedTests: [
    'test/scenarios/conflicts.test.ts',
    'test/scenarios/operator-conflicts.test.ts',
    'test/scenarios/edits-during-sync.test.ts',
    'test/integration/state-pulls-in-doubt.test.ts',
  ],
  find: `      if (change.conflict) this.conflicts.record(change.conflict);
`,
  replace: ``,
} satisfies Mutant;
