import type { Mutant } from '../mutant.js';

export default {
  id: 'm25-in-doubt-taken-as-unsent',
  file: 'src/engine/resolve-in-doubt.ts',
  bugClass: 'a push in doubt guessed',
  what: 'a push a crash left in doubt whose outcome the service cannot tell now is taken as never sent, and planned again',
  relatedTests: [
    'test/scenarios/in-doubt-status.test.ts',
    'test/scenarios/crash.test.ts',
    'test/scenarios/crash-replace.test.ts',
  ],
  find: `      if (item.documentId) unresolved.add(item.documentId);`,
  replace: `      deps.state.outbox.dropUnsent(item.id, deps.now());`,
} satisfies Mutant;
