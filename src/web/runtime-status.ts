/**
 * What only the running daemon knows, as the status server asks for it on each request: the
 * state database cannot say when the next cycle is due or how full the request queue is. The
 * daemon passes a `runtime()` function returning this; tests pass a fixed one.
 */
import type { WatcherMode } from './metrics.js';

export interface RuntimeStatus {
  /** When the next scheduled cycle starts (ISO, UTC); null when none is scheduled. */
  readonly nextCycleAt: string | null;
  /** Requests waiting in the rate-limited queue. */
  readonly queueDepth: number;
  /** Requests sent to the service per second, recently. */
  readonly requestsPerSecond: number;
  /** `events` while the OS delivers change events; `scanning` after the watch limit was hit. */
  readonly watcherMode: WatcherMode | 'off';
  /** Whether docsync holds a token the service accepts; false means `docsync auth login`. */
  readonly tokenValid: boolean;
  /**
   * Why the state database cannot be used (disk full, damaged, ...): the sentence naming the file
   * and what to do. Set once the daemon hit it and is stopping; absent or null otherwise.
   */
  readonly stateFailure?: string | null;
}

export type RuntimeProvider = () => RuntimeStatus;
