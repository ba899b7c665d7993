import type { Mutant } from '../mutant.js';

export default {
  id: 'm16-conflict-not-recorded',
  file: 'src/engine/execute-document.ts',
  bugClass: 'a conflict not recorded',
  what: 'an action that settles a conflict (status on both sides, modify beats delete) does not record it',
  relatedTests: [
    'test/scenarios/conflicts.test.ts',
    'test/scenarios/operator-conflicts.test.ts',
    'test/scenarios/edits-during-sync.test.ts',
  ],
  find: `    if (recordedHere && base)
      recordConflict(ctx, action, { folder: base.folder, documentId: base.id });`,
  replace: ``,
} satisfies Mutant;
