import type { Mutant } from '../mutant.js';

export default {
  id: 'm23-attachment-by-name-only',
  file: 'src/domain/local-changes.ts',
  bugClass: 'an attachment compared by name only',
  what: 'a file is the agreed attachment when its name matches: new content under the same name is not seen',
  relatedTests: [
    'test/unit/detect-changes.test.ts',
    'test/scenarios/local-actions.test.ts',
    'test/scenarios/conflicts.test.ts',
  ],
  find: `    } else if (file.sha256 !== attachment.sha256) {`,
  replace: `    } else if (file.name !== attachment.file) {`,
} satisfies Mutant;
