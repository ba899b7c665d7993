import type { Mutant } from '../mutant.js';

export default {
  id: 'm12-attachment-delete-without-trash-copy',
  file: 'src/engine/execute-action.ts',
  bugClass: 'a delete without its trash copy',
  what: 'an attachment removed in the folder is deleted in the service without its copy in `.docsync/trash/`',
  relatedTests: [
    'test/scenarios/local-actions.test.ts',
    'test/scenarios/absence-is-not-deletion.test.ts',
    'test/scenarios/operator-trash.test.ts',
  ],
  find: `  await saveAttachmentCopy(deps, base, action.attachmentId);
  // The last look at the folder`,
  replace: `  // The last look at the folder`,
} satisfies Mutant;
