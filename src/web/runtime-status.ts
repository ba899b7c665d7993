/**
 * What only the running daemon knows, as the status server asks for it on each request: the
 * state database cannot say when the next cycle is due or how full the request queue is. The
 * daemon passes a `runtime()` function returning this; tests pass a fixed one.
 */
import type { Lane } from '../domain/lanes.js';
import type { GovernorView } from '../domain/request-governor.js';
import type { WatcherMode } from './metrics.js';

/** One lane of the daemon's work: what waits in it and how long its requests waited. */
export interface LaneStatus {
  /** Entity syncs waiting to start. */
  readonly syncsWaiting: number;
  /** Requests waiting in the rate-limited queue. */
  readonly requestsWaiting: number;
  /** Requests sent since the start, and the time they waited in all. */
  readonly requestsStarted: number;
  readonly requestsWaitedMs: number;
}

/** The daemon's scheduler: lanes, the poll round, the coverage. */
export interface WorkStatus {
  readonly lanes: Readonly<Record<Lane, LaneStatus>>;
  readonly syncsRunning: number;
  /** The poll round under way: entities still to list, and whether it lists them whole. */
  readonly round: {
    readonly full: boolean;
    readonly left: number;
    /** Its entities in all, and when it began (epoch ms). */
    readonly total: number;
    readonly startedAt: number;
  } | null;
  /** Entities that changed lately, polled more often. */
  readonly hotEntities: number;
  /** The longest an entity goes unlisted, at the budget polling has. */
  readonly coveragePeriodMs: number;
}

export interface RuntimeStatus {
  /** When the next scheduled cycle starts (ISO, UTC); null when none is scheduled. */
  readonly nextCycleAt: string | null;
  /** Requests waiting in the rate-limited queue. */
  readonly queueDepth: number;
  /** Requests sent to the service per second, recently. */
  readonly requestsPerSecond: number;
  /** The most the service allows (`queue.requestsPerSecond`); absent outside the daemon. */
  readonly requestBudgetPerSecond?: number;
  /** The request governor: the rate it allows now (lowered by 429s), and the 429s so far. */
  readonly governor?: GovernorView;
  /** `events` while the OS delivers change events; `scanning` after the watch limit was hit. */
  readonly watcherMode: WatcherMode | 'off';
  /** Whether docsync holds a token the service accepts; false means `docsync auth login`. */
  readonly tokenValid: boolean;
  /**
   * When the service last answered a request (any answer but a 5xx): while a long sync runs,
   * it is what says docsync still gets through. Absent outside the daemon.
   */
  readonly lastServiceAnswerAt?: number | null;
  /**
   * Why the state database cannot be used (disk full, damaged, ...): the sentence naming the file
   * and what to do. Set once the daemon hit it and is stopping; absent or null otherwise.
   */
  readonly stateFailure?: string | null;
  /** The store's filesystem and how changes in it are found; absent outside the daemon. */
  readonly folderMode?: string;
  /** The work scheduler's view; absent outside the daemon. */
  readonly work?: WorkStatus;
  /** Which docsync runs, since when (epoch ms); absent outside the daemon. */
  readonly daemon?: { readonly version: string; readonly startedAt: number };
}

export type RuntimeProvider = () => RuntimeStatus;
