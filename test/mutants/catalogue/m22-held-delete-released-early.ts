import type { Mutant } from '../mutant.js';

export default {
  id: 'm22-held-delete-released-early',
  file: 'src/domain/delete-hold.ts',
  bugClass: 'a held delete released early',
  what: "a removed folder's delete is due at the second sync that sees it, not at the end of its hold time",
  relatedTests: [
    'test/unit/delete-hold.test.ts',
    'test/scenarios/delete-hold.test.ts',
    'test/integration/daemon-mass-delete.test.ts',
    'test/integration/held-delete-repo.test.ts',
  ],
  find: `    if (known.dueAt <= now) return { kind: 'due', rule: 3 };`,
  replace: `    if (known.dueAt <= now + holdMs) return { kind: 'due', rule: 3 };`,
} satisfies Mutant;
