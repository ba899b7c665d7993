import type { Mutant } from '../mutant.js';

export default {
  id: 'm28-work-settled-past-its-sync',
  file: 'src/state/entity-work-repo.ts',
  bugClass: 'work cleared by a sync that started before it was asked for',
  what: "a sync that succeeds clears its entity's row whatever was asked while it ran: a change seen during the sync is kept only in memory, and a stop before the next sync loses it",
  relatedTests: [
    'test/integration/entity-work-repo.test.ts',
    'test/unit/work-scheduler.test.ts',
    'test/integration/state-migrations.test.ts',
  ],
  find: `      \`DELETE FROM entity_work WHERE \${owner} AND seen <= @seen AND (full_listing = 0 OR @full = 1)\`,`,
  replace: `      \`DELETE FROM entity_work WHERE \${owner} AND @seen = @seen AND (full_listing = 0 OR @full = 1)\`,`,
} satisfies Mutant;
