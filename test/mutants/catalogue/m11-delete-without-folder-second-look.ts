import type { Mutant } from '../mutant.js';

export default {
  id: 'm11-delete-without-folder-second-look',
  file: 'src/engine/execute-action.ts',
  bugClass: 'a delete without its second look',
  what: "a document's delete is sent without looking for its folder again (a folder put back meanwhile is not seen)",
  relatedTests: ['test/scenarios/put-back.test.ts', 'test/integration/daemon-put-back.test.ts'],
  find: `  await checkFolderStillRemoved(ctx, id, action.folder);
`,
  replace: ``,
} satisfies Mutant;
