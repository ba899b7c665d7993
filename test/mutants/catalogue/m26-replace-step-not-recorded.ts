import type { Mutant } from '../mutant.js';

export default {
  id: 'm26-replace-step-not-recorded',
  file: 'src/engine/push-replace.ts',
  bugClass: 'a commit moved before the step it depends on',
  what: 'a content replace does not note that its upload is done before it deletes the old attachment',
  relatedTests: ['test/scenarios/crash-replace.test.ts', 'test/scenarios/local-actions.test.ts'],
  find: `  outbox.markStep(id, 'replace-attachment', halfway, deps.now());
`,
  replace: ``,
} satisfies Mutant;
