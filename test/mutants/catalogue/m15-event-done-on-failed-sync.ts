import type { Mutant } from '../mutant.js';

export default {
  id: 'm15-event-done-on-failed-sync',
  file: 'src/daemon/daemon-listeners.ts',
  bugClass: 'an event marked done on failure',
  what: 'a webhook event whose sync failed resolves, so the event is marked done and never tried again',
  relatedTests: [
    'test/integration/webhook-processing.test.ts',
    'test/integration/daemon-webhook-durable.test.ts',
    'test/simulation/regressions.test.ts',
  ],
  find: `  if (outcome === 'failed') {
    // The service may have removed`,
  replace: `  if (outcome === 'failed' && event.attempt > 1) {
    // The service may have removed`,
} satisfies Mutant;
