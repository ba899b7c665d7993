import type { Mutant } from '../mutant.js';

export default {
  id: 'm02-decision-skips-lock',
  file: 'src/daemon/daemon.ts',
  bugClass: 'a skipped lock (CLI/operator decisions)',
  what: "a decision a command handed over (conflicts resolve, deletes approve) is carried out without the entity's lock: the runner takes the lock and lets it go at once, then hands the job the lease it no longer holds",
  relatedTests: [
    'test/integration/operator-handoff.test.ts',
    'test/integration/daemon-entity-locks.test.ts',
    'test/scenarios/operator-conflicts.test.ts',
  ],
  find: `          this.withEntity(owner, \`decision (\${request.kind})\`, job),`,
  replace: `          this.withEntity(owner, \`decision (\${request.kind})\`, (lease) => lease).then(job),`,
} satisfies Mutant;
