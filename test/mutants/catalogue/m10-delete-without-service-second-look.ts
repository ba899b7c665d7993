import type { Mutant } from '../mutant.js';

export default {
  id: 'm10-delete-without-service-second-look',
  file: 'src/engine/execute-action.ts',
  bugClass: 'a delete without its second look',
  what: "a document's delete is sent without looking at the service again after its copy was saved",
  relatedTests: [
    'test/scenarios/edits-during-sync.test.ts',
    'test/scenarios/conflicts.test.ts',
    'test/simulation/regressions.test.ts',
  ],
  find: `  await checkStillAsCopied(ctx, id, copied);
`,
  replace: ``,
} satisfies Mutant;
