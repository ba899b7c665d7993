/**
 * What the engine works with: the two ports, the state, a logger and a clock. One object, so
 * no engine function takes a long list of positional parameters (style guide §5).
 */

import type { LocalStore } from '../local/local-store.js';
import type { Logger } from '../log/create-logger.js';
import type { RemoteStore } from '../remote/remote-store.js';
import type { EngineState } from './engine-state.js';
import type { EntityLocks } from './entity-locks.js';
import type { FailpointHook } from './failpoints.js';

export interface EngineSettings {
  /** For deep links in `.entity.json`, `.document.json` and the shortcut. */
  readonly webUrl: string;
  readonly onRemoteDelete: 'trash' | 'delete';
  readonly maxDeletePercent: number;
  readonly maxDeleteCount: number;
  /** Entities planned and executed at once; requests are rate-limited by the client's queue. */
  readonly concurrency: number;
  /** Seconds subtracted from the cursor: the service may commit a change stamped earlier. */
  readonly overlapSeconds: number;
  /** The local zone as minutes east of UTC ("today", conflict stamps, trash days). */
  readonly utcOffsetMinutes: number;
}

export interface EngineDeps {
  readonly remote: RemoteStore;
  readonly local: LocalStore;
  readonly state: EngineState;
  readonly logger: Logger;
  readonly settings: EngineSettings;
  readonly now: () => number;
  /** The service's clock minus ours (from its Date headers). */
  readonly clockOffsetMs: () => number;
  /**
   * The entities' locks (entity-locks.ts): one table per process and store, shared by every
   * path that works on an entity. A cycle takes the lock of each entity it works on.
   */
  readonly locks: EntityLocks;
  /** The simulation's hook at the named steps of a sync (failpoints.ts); absent in production. */
  readonly failpoint?: FailpointHook;
}
