import type { Mutant } from '../mutant.js';

export default {
  id: 'm15-event-done-on-failed-sync',
  file: 'src/state/state-store.ts',
  bugClass: 'an event marked done on failure',
  what: 'a webhook event whose sync failed is settled as done with its row, so it is never tried again',
  relatedTests: [
    'test/integration/state-webhook-work.test.ts',
    'test/integration/daemon-webhook-work.test.ts',
    'test/integration/daemon-webhook-durable.test.ts',
    'test/simulation/regressions.test.ts',
  ],
  find: `      const failed = this.webhookEvents.settleFailed(owner, seen, failure);`,
  replace: `      const failed: never[] = [];
      this.webhookEvents.settleDone(owner, seen, now);`,
} satisfies Mutant;
