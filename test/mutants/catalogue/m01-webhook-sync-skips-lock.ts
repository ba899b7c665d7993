import type { Mutant } from '../mutant.js';

export default {
  id: 'm01-webhook-sync-skips-lock',
  file: 'src/engine/cycle-leases.ts',
  bugClass: 'a skipped lock (webhook path)',
  what: "a webhook's sync does not keep its entity's lock (urgent work takes it and lets it go at once, then works on without it)",
  relatedTests: [
    'test/unit/entity-locks.test.ts',
    'test/scenarios/entity-locks.test.ts',
    'test/integration/daemon-entity-locks.test.ts',
  ],
  find: `  hold(owner: OwnerRef): Promise<EntityLease> {
    const key = ownerKey(owner);`,
  replace: `  hold(owner: OwnerRef): Promise<EntityLease> {
    const key = ownerKey(owner);
    if (this.holder === 'sync (webhook)') return this.locks.run(owner, this.holder, (lease) => lease);`,
} satisfies Mutant;
