/**
 * Which lane a request belongs to, carried by the async context of the work that makes it, so
 * neither the engine's call chains nor the port's methods take a lane parameter: the daemon
 * runs an entity's sync `inLane('webhook', ...)`, the engine wraps a push `inLane('push', ...)`,
 * and the request queue reads the lane when the request joins it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Lane } from '../domain/lanes.js';

const context = new AsyncLocalStorage<Lane>();

export function inLane<T>(lane: Lane, work: () => T): T {
  return context.run(lane, work);
}

/** Work started outside any lane (`--once`, `docsync api`) is the watcher's: neither first nor last. */
export function currentLane(): Lane {
  return context.getStore() ?? 'watcher';
}
