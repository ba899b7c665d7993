import type { Mutant } from '../mutant.js';

export default {
  id: 'm29-failed-sync-not-retried',
  file: 'src/daemon/work-scheduler.ts',
  bugClass: 'work asked for dropped when its sync fails',
  what: 'a sync that fails keeps its row, but nothing asks for it again until the next start: a change made while the service was down waits for a poll',
  relatedTests: [
    'test/unit/work-scheduler.test.ts',
    'test/integration/daemon-work-retry.test.ts',
    'test/integration/daemon-webhook-durable.test.ts',
  ],
  find: `        if (row) this.#startAt(requestOf(row), row.dueAt);`,
  replace: `        if (row) void requestOf(row);`,
} satisfies Mutant;
