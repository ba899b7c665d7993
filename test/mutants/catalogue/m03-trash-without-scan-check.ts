import type { Mutant } from '../mutant.js';

export default {
  id: 'm03-trash-without-scan-check',
  file: 'src/engine/local-writes.ts',
  bugClass: 'a local write without its "still as scanned" check',
  what: "a file or folder is trashed expecting whatever is there now, not what the plan's scan saw",
  relatedTests: [
    'test/scenarios/edits-during-sync.test.ts',
    'test/integration/expected-check.test.ts',
  ],
  find: `      else await this.deps.local.trash(relPath, expected);`,
  replace: `      else await this.deps.local.trash(relPath, await this.deps.local.lookAt(relPath));`,
} satisfies Mutant;
