import type { Mutant } from '../mutant.js';

export default {
  id: 'm04-meta-rewrite-without-scan-check',
  file: 'src/engine/local-writes.ts',
  bugClass: 'a local write without its "still as scanned" check',
  what: '`.document.json` is rewritten expecting whatever is there now, not what the scan saw',
  relatedTests: [
    'test/scenarios/edits-during-sync.test.ts',
    'test/integration/expected-check.test.ts',
    'test/unit/local-status-kept.test.ts',
  ],
  find: `      this.#expected(folder, DOCUMENT_META),
      options.folderIdentity,`,
  replace: `      await this.deps.local.lookAt(\`\${folder}/\${DOCUMENT_META}\`),
      options.folderIdentity,`,
} satisfies Mutant;
