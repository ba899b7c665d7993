/**
 * The work lanes, highest first. Every request to the service carries its lane's
 * priority in the one rate-limited queue, so a push or a webhook never waits behind a poll
 * round: at most behind the few requests already in flight.
 */
export const LANES = ['push', 'webhook', 'watcher', 'poll'] as const;
export type Lane = (typeof LANES)[number];

/** p-queue priorities: higher runs first. */
export const LANE_PRIORITY: Readonly<Record<Lane, number>> = {
  push: 3, // pushes of local changes, and settling pushes left in doubt
  webhook: 2, // a webhook's targeted sync
  watcher: 1, // an entity the folder watcher reported
  poll: 0, // polling and the full reconcile: whatever the others leave idle
};
