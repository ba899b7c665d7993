import type { Mutant } from '../mutant.js';

export default {
  id: 'm09-agreed-before-local-trash',
  file: 'src/engine/execute-action.ts',
  bugClass: 'the agreed state committed before the local step that makes it true',
  what: 'an attachment the service removed leaves the agreed state before its file is moved to the trash',
  relatedTests: [
    'test/scenarios/remote-actions.test.ts',
    'test/scenarios/crash.test.ts',
    'test/scenarios/edits-during-sync.test.ts',
  ],
  find: `  if (!(await ctx.local.trash(action.folder, action.file)))
    throw new LocalChangedError(\`\${action.folder}/\${action.file}\`);
  return fold(ctx, action, base, { kind: 'done' });`,
  replace: `  const next = await fold(ctx, action, base, { kind: 'done' });
  if (!(await ctx.local.trash(action.folder, action.file)))
    throw new LocalChangedError(\`\${action.folder}/\${action.file}\`);
  return next;`,
} satisfies Mutant;
