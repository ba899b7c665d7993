import type { Mutant } from '../mutant.js';

export default {
  id: 'm02-decision-skips-lock',
  file: 'src/daemon/daemon.ts',
  bugClass: 'a skipped lock (CLI/operator decisions)',
  what: "a decision a command handed over (conflicts resolve, deletes approve) is carried out at once, without the entity's lock",
  relatedTests: [
    'test/integration/operator-handoff.test.ts',
    'test/integration/daemon-entity-locks.test.ts',
    'test/scenarios/operator-conflicts.test.ts',
  ],
  find: `          this.withEntity(owner, \`decision (\${request.kind})\`, job),`,
  replace: `          Promise.resolve(owner).then(() => job()),`,
} satisfies Mutant;
