import type { Mutant } from '../mutant.js';

export default {
  id: 'm13-local-folder-deleted-not-trashed',
  file: 'src/engine/execute-action.ts',
  bugClass: 'a delete without its trash copy',
  what: 'a document folder the service deleted is removed for good instead of moved to `.docsync/trash/`',
  relatedTests: [
    'test/scenarios/remote-actions.test.ts',
    'test/scenarios/operator-trash.test.ts',
    'test/integration/file-modes.test.ts',
  ],
  find: `  if (!(await ctx.local.trash(action.folder, null, action.mode)))`,
  replace: `  if (!(await ctx.local.trash(action.folder, null, 'delete')))`,
} satisfies Mutant;
