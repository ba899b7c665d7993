import type { Mutant } from '../mutant.js';

export default {
  id: 'm08-commit-before-create-settles',
  file: 'src/engine/push.ts',
  bugClass: 'a commit moved before the step it depends on',
  what: "a push's success (a create's base) is committed before its local settle (the folder's `.document.json` naming the new document)",
  relatedTests: [
    'test/scenarios/crash.test.ts',
    'test/scenarios/moved-during-push.test.ts',
    'test/integration/state-crash.test.ts',
  ],
  find: `  await spec.settle?.(result, id);
  await commitAgreed(deps, spec.lease, pushCompleted(id, spec.complete(result)), {
    owner: spec.owner,
    documentId: spec.documentId,
    what: spec.kind,
  });`,
  replace: `  await commitAgreed(deps, spec.lease, pushCompleted(id, spec.complete(result)), {
    owner: spec.owner,
    documentId: spec.documentId,
    what: spec.kind,
  });
  await spec.settle?.(result, id);`,
} satisfies Mutant;
