/**
 * `docsync run`: the long-running daemon. It owns the lifecycle (style guide §8): start takes
 * the single-instance lock, does the housekeeping that is due, catches up with a full reconcile,
 * then listens — cron, the folder watcher, the webhook receiver, the status page. `close()` stops
 * intake, lets the cycle in flight finish its requests, closes the status page, then the database;
 * a second call waits for the first.
 *
 * What stops it for good (`finished()` rejects with it, logged once at fatal): a refused grant,
 * a lock taken over, and a state failure (disk full, I/O error, read-only or damaged state file),
 * because a daemon that cannot record what it did would sync blind. Errors from anything else are
 * logged and the daemon keeps running.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Config } from '../config/schema.js';
import { type Clock, MONOTONIC_CLOCK } from '../domain/clock.js';
import { RunStoppedError, StateFailureError } from '../domain/errors.js';
import type { Lane } from '../domain/lanes.js';
import { ownerKey } from '../domain/owner-key.js';
import { coveragePeriodMs } from '../domain/poll-policy.js';
import type { GovernorView } from '../domain/request-governor.js';
import type { OwnerRef } from '../domain/types.js';
import type { AgreedDocument, UnlodgedPage } from '../domain/unlodged-hints.js';
import { plural } from '../domain/words.js';
import { DeleteWindow } from '../engine/delete-window.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import type { EntityLease, EntityLocks } from '../engine/entity-locks.js';
import { refreshEntities } from '../engine/refresh-entities.js';
import { type CycleOptions, runCycle } from '../engine/run-cycle.js';
import type { FilesystemKind } from '../local/filesystem-kind.js';
import { asyncFsCalls, syncFsCalls } from '../local/fs-calls.js';
import type { OwnWrites } from '../local/own-writes.js';
import { checkStoreRoot } from '../local/store-root.js';
import { type EntityTouch, FolderWatcher, type WatchFactory } from '../local/watcher.js';
import type { Logger } from '../log/create-logger.js';
import { carryOutDecision } from '../operator/decisions.js';
import type { OperatorDeps } from '../operator/operator-deps.js';
import { AuthRequiredError } from '../remote/api-error.js';
import { inLane } from '../remote/request-lane.js';
import type { CycleResult } from '../state/cycle-repo.js';
import { InstanceLock } from '../state/instance-lock.js';
import { isStateFailure, stateFailureOf } from '../state/state-failure.js';
import type { StateStore } from '../state/state-store.js';
import { longestCronGapMs } from '../web/health.js';
import type { WorkStatus } from '../web/runtime-status.js';
import { watchDecisions } from './decision-watch.js';
import { EntityRoots } from './entity-roots.js';
import { HOUSEKEEPING_EVERY_MS, type HousekeepingDeps, housekeepIfDue } from './housekeeping.js';
import { LocalWorkCheck } from './local-work-check.js';
import { PollRounds } from './poll-rounds.js';
import { ScanPass } from './scan-pass.js';
import { claimService } from './service-claim.js';
import { sweepIntervalMs, UnlodgedSweep } from './unlodged-sweep.js';
import { type EventResult, settlingWork } from './webhook-work.js';
import {
  type CycleRequest,
  type LaterWork,
  type SyncEnd,
  type SyncOutcome,
  WorkScheduler,
} from './work-scheduler.js';

export interface Closable {
  close(): Promise<void> | void;
}

/**
 * What `extras` started. Intake (the webhook receiver) stops first, with cron and the watcher;
 * observers (the status page) close last, after the cycle in flight, so `/healthz` tells why the
 * daemon is stopping for as long as it still runs.
 */
export interface DaemonListeners {
  readonly intake: readonly Closable[];
  readonly observers: readonly Closable[];
}

/**
 * What the daemon runs on, as the composition root builds it: the configuration, the state
 * database, the logger, the client's request queue, the clock, and one close for all of them.
 */
export interface DaemonHost {
  readonly config: Config;
  readonly logger: Logger;
  readonly state: StateStore;
  /** The clock of the engine's `now`: the holds' ends and the daily housekeeping wait on it. */
  readonly clock: Clock;
  readonly remote: {
    readonly queue: {
      readonly depth: number;
      laneStats(): Readonly<Record<Lane, { waiting: number; started: number; waitedMs: number }>>;
      /** The request governor's rate now, its ceiling and the 429s so far. */
      governor(): GovernorView;
      /**
       * Refuses what waits, cuts the reads in flight and, after the grace, the writes: how a
       * stop ends the syncs under way at their next request rather than after all they queued.
       */
      stop(): void;
    };
    /** Where download links may point: the listeners' ports, once taken, never. */
    readonly links: { addOwnPort(port: number): void };
  };
  close(): void;
}

/** The folder the watcher watches, and docsync's own writes in it, which it leaves out. */
export interface WatchedFolder {
  readonly root: string;
  readonly ownWrites: OwnWrites;
  /** The filesystem the root is on (a network share gets no change events from elsewhere). */
  filesystem(): Promise<FilesystemKind | null>;
}

export interface DaemonParts {
  readonly app: DaemonHost;
  readonly deps: EngineDeps;
  readonly local: WatchedFolder;
  /**
   * What a person's decisions run on (the status page's, and those a command hands over); its
   * `locks` are `deps.locks`, so a decision takes the very lock the syncs take.
   */
  readonly operator: OperatorDeps;
  /**
   * A page of the firm's unlodged list (the client's `unlodgedPage`), which the sweep reads for
   * hints of changes (unlodged-sweep.ts); absent, or `schedule.unlodgedSweepShare` 0: no sweep.
   */
  readonly unlodged?: (offset: number) => Promise<UnlodgedPage>;
  /**
   * A token the service accepts (the client's `tokens.accessToken()`): the start claims the state
   * and the folder for the service only once it holds one (service-claim.ts).
   */
  readonly authorise: () => Promise<unknown>;
  /**
   * What the sweep of the unlodged list keeps its pace by: the machine's monotonic time
   * (`MONOTONIC_CLOCK`) unless a test hands its virtual clock.
   */
  readonly sweepClock?: Clock;
  /** Listeners started with the daemon (webhook receiver, status page). */
  readonly extras?: (daemon: Daemon) => Promise<DaemonListeners>;
  /** Told of every finished cycle (metrics). */
  readonly onCycle?: (result: string, railsTripped: number) => void;
  /** Told of every webhook event done or failed with its entity's sync (metrics). */
  readonly onWebhookEvent?: (result: EventResult) => void;
  /**
   * Overrides for tests: watcher timing, and where its events come from (the simulation hands
   * them in itself rather than from the OS, so a seed replays exactly).
   */
  readonly watcher?: { settleMs?: number; pollIntervalMs?: number; watchFactory?: WatchFactory };
}

export class Daemon {
  readonly scheduler: WorkScheduler;
  /** The deletes let through lately, judged together (delete-window.ts). */
  readonly #deleteWindow: DeleteWindow;
  /**
   * The schedule's longest gap, worked out once: the rails ask for the coverage period on every
   * entity sync, and the gap takes 200 cron runs to find (`#rounds` keeps the entity count, the
   * period's other half, for the same reason).
   */
  readonly #cronGapMs: number;
  /** The poll rounds' cycle rows and report lines (poll-rounds.ts). */
  readonly #rounds: PollRounds;
  /** What lies above the entity folders, looked at between full cycles (entity-roots.ts). */
  readonly #roots: EntityRoots;
  #lock: InstanceLock | undefined;
  #tasks: ScheduledTask[] = [];
  #watcher: FolderWatcher | undefined;
  #scanPass: ScanPass | undefined;
  #sweep: UnlodgedSweep | undefined;
  #filesystem: FilesystemKind | null = null;
  #listeners: DaemonListeners = { intake: [], observers: [] };
  #cancelHousekeeping: (() => void) | undefined;
  /** Stops reading a person's decisions; resolves once those under way are done (decision-watch.ts). */
  #stopDecisionWatch: (() => Promise<void>) | undefined;
  #housekeeping: Promise<void> | null = null;
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #fatal: Error | undefined;
  readonly #shutdown = new AbortController();
  readonly #done: Promise<void>;
  #resolveDone!: () => void;
  lastCycle: { finishedAt: number; ok: boolean; error?: string } | undefined;

  constructor(private readonly parts: DaemonParts) {
    const { config } = parts.app;
    const share = config.schedule.maxPollShare;
    this.scheduler = new WorkScheduler(
      {
        run: (options, lane) => inLane(lane, () => this.#cycle(options)),
        startRound: (full) => inLane('poll', () => this.#rounds.start(full)),
        finishRound: (_full, reports) => {
          const end = this.#rounds.finish(reports, this.#shutdown.signal.aborted);
          if (end) this.#cycleFinished(end.result, end.railsTripped);
        },
        pollsPerSecond: pollRate(config),
        pacePolls: share < 1,
        now: parts.deps.now,
        after: (ms, fire) => parts.app.clock.after(ms, fire, false),
        locks: parts.deps.locks,
        work: settlingWork({
          state: parts.app.state,
          logger: parts.app.logger,
          now: parts.deps.now,
          counted: parts.onWebhookEvent,
          relist: () =>
            void this.refreshEntities().catch((error: unknown) =>
              this.#onError(error, 'reading the entity list failed'),
            ),
        }),
        laterWork: (owners) => this.#holdEnds(owners),
      },
      (error) => this.#onError(error, 'cycle bookkeeping failed'),
      { urgent: 8, poll: Math.max(2, config.queue.concurrency) },
    );
    this.#cronGapMs = longestCronGapMs(config.schedule.cron);
    this.#rounds = new PollRounds({
      deps: parts.deps,
      state: parts.app.state,
      logger: parts.app.logger,
      signal: this.#shutdown.signal,
    });
    this.#deleteWindow = new DeleteWindow(
      () => this.coveragePeriodMs(),
      config.safety.deleteHoldSeconds * 1000,
    );
    this.#roots = new EntityRoots({
      local: parts.deps.local,
      state: parts.app.state,
      logger: parts.app.logger,
      now: parts.deps.now,
      refresh: () => this.refreshEntities(),
      onError: (error) => this.#onError(error, 'looking above the entity folders failed'),
    });
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  get watcherMode(): 'events' | 'scanning' | 'off' {
    return this.#watcher?.mode ?? 'off';
  }

  /** Resolves when the daemon has closed; rejects with what stopped it, if it was an error. */
  async finished(): Promise<void> {
    await this.#done;
    if (this.#fatal) throw this.#fatal;
  }

  /** Rejects with what kept the daemon from starting (a state failure as its sentence). */
  async start(): Promise<void> {
    this.#starting = this.#start();
    try {
      await this.#starting;
    } catch (error) {
      this.#stopWith(error);
      throw this.#fatal;
    }
  }

  async #start(): Promise<void> {
    const { app, local } = this.parts;
    const { config, state, logger } = app;
    // A root that is a file or may not be written stops the start, not every cycle after it.
    await checkStoreRoot(local.root);
    this.#lock = InstanceLock.acquire(state.db);
    this.#lock.startHeartbeat((error) => this.#stopWith(error));
    // A state or folder of another service stops the start before anything reaches either.
    await claimService(
      {
        settings: state.settings,
        local: this.parts.deps.local,
        logger,
        authorise: this.parts.authorise,
      },
      {
        baseUrl: config.service.baseUrl,
        statePath: config.state.path,
        root: local.root,
        record: true,
      },
    );
    state.cycles.markInterrupted(Date.now());
    // Before the first cycle: a disk filled by downloads a crash left behind gets its space back
    // before the catch-up needs it. A state failure here stops the start.
    await housekeepIfDue(this.#housekeepingDeps);
    this.#scheduleHousekeeping();
    this.#tasks = [
      cron.schedule(config.schedule.cron, () => this.scheduler.request({ trigger: 'cron' }), {
        name: 'sync',
      }),
      cron.schedule(
        config.schedule.fullReconcileCron,
        () => this.scheduler.request({ trigger: 'cron', fullReconcile: true }),
        { name: 'full-reconcile' },
      ),
    ];
    this.#watcher = new FolderWatcher({
      root: local.root,
      ignore: [...config.ignore],
      settleMs: this.parts.watcher?.settleMs ?? config.settleSeconds * 1000,
      ...(this.parts.watcher?.pollIntervalMs
        ? { pollIntervalMs: this.parts.watcher.pollIntervalMs }
        : {}),
      ownWrites: local.ownWrites,
      ...(this.parts.watcher?.watchFactory
        ? { watchFactory: this.parts.watcher.watchFactory }
        : {}),
      log: logger,
      onTouch: (touch) => this.#touched(touch),
    });
    await this.#watcher.start();
    await this.#startScanPass();
    // Before the listeners, as the scan pass's first looks: a start's own work.
    await this.#lookAtWorkLeft();
    const operator = this.parts.operator;
    this.#stopDecisionWatch = watchDecisions({
      state,
      logger,
      // A person decided and waits to see it done, as after "Sync now": the cycle is recorded
      // as `manual`, and takes the webhook lane, ahead of the watcher's and the polls.
      sync: (owner) => this.scheduler.request({ trigger: 'manual', owner }),
      // Each entity's part under its lock, between its syncs (as the status page's decisions).
      carryOut: (request) =>
        carryOutDecision(operator, request, (owner, job) =>
          this.withEntity(owner, `decision (${request.kind})`, job),
        ),
      now: this.parts.deps.now,
      onError: (error) => this.#onError(error, 'carrying out a decision failed'),
    });
    this.#listeners = (await this.parts.extras?.(this)) ?? this.#listeners;
    if (this.#closing) return; // stopped while starting: no catch-up, close() waits for us
    // The work the last run left (stopped, failed, a hold not ended) first, then a catch-up with
    // whatever happened while docsync was not running, deletions included.
    this.scheduler.resume();
    this.scheduler.request({ trigger: 'cron', fullReconcile: true });
    this.#startSweep();
    logger.info({ root: local.root, cron: config.schedule.cron }, 'docsync daemon started');
  }

  /**
   * Reads the companies and trusts again, in the webhook lane (a webhook named a new one). A
   * refresh already under way (a round's) is joined, not repeated beside it.
   */
  refreshEntities(): Promise<unknown> {
    return inLane('webhook', () => refreshEntities(this.parts.deps, this.#shutdown.signal));
  }

  /**
   * A targeted cycle (webhook or watcher); resolves when the cycle that includes it is over,
   * with its outcome.
   */
  request(request: CycleRequest): Promise<SyncOutcome> {
    return this.scheduler.request(request);
  }

  /**
   * The entities' locks (engine/entity-locks.ts), which every path working on an entity takes;
   * `locks.violations` counts work done without one (0 unless the invariant broke).
   */
  get locks(): EntityLocks {
    return this.parts.deps.locks;
  }

  /**
   * Runs `job` holding the entity's lock, with its lease: after the sync of it running now,
   * before any asked for meanwhile. A person's decision (the status page's, the command line's)
   * runs this way; the operator's changes take the lease (operator/operator-deps.ts).
   */
  withEntity<T>(
    owner: OwnerRef,
    holder: string,
    job: (lease: EntityLease) => Promise<T> | T,
  ): Promise<T> {
    const { locks } = this.parts.deps;
    const busy = locks.holderOf(owner);
    if (busy !== null)
      this.parts.app.logger.info(
        { owner: ownerKey(owner), holder, waitsFor: busy },
        `${holder} waits for the ${busy} of ${owner.kind} ${owner.id} to end`,
      );
    return locks.run(owner, holder, job);
  }

  /**
   * The longest an entity goes unlisted: one poll round at the rate polling can count on, or
   * the `schedule.cron` interval when the budget lists every entity sooner.
   */
  coveragePeriodMs(): number {
    const { config } = this.parts.app;
    return coveragePeriodMs(this.#rounds.entityCount, pollRate(config), this.#cronGapMs);
  }

  /** Lanes, round and coverage, for the status page and `/metrics`. */
  workStatus(): WorkStatus {
    const requests = this.parts.app.remote.queue.laneStats();
    const work = this.scheduler.snapshot();
    const lane = (l: Lane) => ({
      syncsWaiting: work.waiting[l],
      requestsWaiting: requests[l].waiting,
      requestsStarted: requests[l].started,
      requestsWaitedMs: requests[l].waitedMs,
    });
    return {
      lanes: {
        push: lane('push'),
        webhook: lane('webhook'),
        watcher: lane('watcher'),
        poll: lane('poll'),
      },
      syncsRunning: work.running,
      round: work.round,
      hotEntities: work.hot,
      coveragePeriodMs: this.coveragePeriodMs(),
    };
  }

  /** When the next scheduled cycle is due. */
  nextCycleAt(): Date | null {
    return this.#tasks[0]?.getNextRun() ?? null;
  }

  /** The store's filesystem and how changes in it are found, for the status page. */
  get folderMode(): string {
    const every = `scanned every ${this.parts.app.config.watcher.scanIntervalSeconds} s`;
    const fs = this.#filesystem;
    if (!fs) return `not readable yet; ${every}`;
    return fs.network
      ? `network filesystem (${fs.type}): no change events for other machines' writes; ${every}`
      : `local filesystem (${fs.type}): change events, and ${every}`;
  }

  /**
   * The folder scans beside the watcher (scan-pass.ts). On a network share the OS reports no
   * other machine's writes, so docsync says so once, loudly, and the scans are what find them.
   */
  async #startScanPass(): Promise<void> {
    const { app, local, deps } = this.parts;
    const { config, logger, state } = app;
    this.#filesystem = await local.filesystem();
    if (this.#filesystem?.network) {
      logger.warn(
        {
          root: local.root,
          filesystem: this.#filesystem.type,
          scanIntervalSeconds: config.watcher.scanIntervalSeconds,
        },
        `NETWORK FILESYSTEM: ${local.root} is on ${this.#filesystem.type}, where the OS does not ` +
          'report changes made from other machines. docsync scans every entity folder every ' +
          `${config.watcher.scanIntervalSeconds} s (watcher.scanIntervalSeconds) to find them.`,
      );
    }
    this.#scanPass = new ScanPass({
      root: local.root,
      ignore: [...config.ignore],
      intervalMs: config.watcher.scanIntervalSeconds * 1000,
      entities: () => state.entities.folders(),
      fs: async () => ((await local.filesystem())?.network ? asyncFsCalls : syncFsCalls),
      // An entity in a sync is skipped, not waited for: that sync reads its folder anyway.
      ifFree: (owner, look) => deps.locks.runIfFree(owner, 'scan pass', look),
      syncedAt: (owner) => this.scheduler.syncedAt(owner),
      onChanged: (owner) => void this.scheduler.request({ trigger: 'watcher', owner }),
      comparer: () => this.#comparer(),
      now: deps.now,
      onError: (error) => this.#onError(error, 'scanning the folder failed'),
      onPassEnd: ({ folders, changed, ms }) =>
        app.logger.info(
          { folders, changed, ms: Math.round(ms) },
          `folder scan pass: ${plural(folders, 'entity folder')} in ${(ms / 1000).toFixed(1)} s, ${changed} to sync`,
        ),
      beforePass: () => this.#roots.check(),
    });
    this.#scanPass.start();
  }

  /**
   * The scan pass's comparison of a folder with its agreed state (local-work-check.ts), made for
   * every folder at the start: what it finds is recorded for `docsync status`, and the pass asks
   * for the entity's sync at once. Files still being written get their sync once settled, as
   * the watcher would give them. Before the first sync there is no agreed state to compare with:
   * the first sync is a round over every entity anyway.
   */
  #comparer(): (owner: OwnerRef, folder: string) => Promise<boolean> {
    const { app, deps } = this.parts;
    if (!app.state.settings.initialSyncDone()) return async () => false;
    const check = new LocalWorkCheck({
      local: deps.local,
      state: app.state,
      now: deps.now,
      utcOffsetMinutes: deps.settings.utcOffsetMinutes,
    });
    return async (owner, folder) => {
      const look = await check.look(owner, folder);
      if (look.unsettled) this.#syncWhenSettled(owner);
      if (look.work === null) return false;
      const { documents, files } = look.work;
      app.logger.info(
        { owner: ownerKey(owner), documents, files },
        `${folder}: ${plural(files, 'file')} in ${plural(documents, 'document')} not in the service yet; syncing it in the watcher's lane`,
      );
      return true;
    };
  }

  /**
   * Compares the folders of the entities the last run left work for with their agreed state,
   * before their syncs are asked for: what a stop left in them is counted for `docsync status`
   * ("Local changes waiting") while it goes up. One the scan pass is looking at is skipped.
   */
  async #lookAtWorkLeft(): Promise<void> {
    const { state } = this.parts.app;
    const look = this.#comparer();
    for (const row of state.work.all()) {
      if (this.#closing) return;
      const folder = state.entities.get(row.owner)?.folder;
      if (!folder) continue;
      await this.parts.deps.locks
        .runIfFree(row.owner, 'look at the work left', () => look(row.owner, folder))
        .catch((error: unknown) => this.#onError(error, 'looking at the work left failed'));
    }
  }

  #syncWhenSettled(owner: OwnerRef): void {
    const { config } = this.parts.app;
    const settleMs = this.parts.watcher?.settleMs ?? config.settleSeconds * 1000;
    setTimeout(() => void this.scheduler.request({ trigger: 'watcher', owner }), settleMs).unref();
  }

  /**
   * The sweep of the firm's unlodged list beside the polls (unlodged-sweep.ts): one request
   * every 1 / (`schedule.unlodgedSweepShare` × rate) seconds, in the poll lane.
   */
  #startSweep(): void {
    const { app, unlodged } = this.parts;
    const { config, state, logger } = app;
    const intervalMs = sweepIntervalMs(
      config.schedule.unlodgedSweepShare,
      config.queue.requestsPerSecond,
    );
    if (!unlodged || intervalMs === null) return;
    this.#sweep = new UnlodgedSweep({
      page: (offset) => inLane('poll', () => unlodged(offset)),
      agreed: (ids) => {
        const found = new Map<string, AgreedDocument>();
        for (const id of ids) {
          const base = state.base.get(id);
          if (base) found.set(id, { owner: base.owner, statusId: base.statusId });
        }
        return found;
      },
      company: (id) => {
        const record = state.entities.findById(id, 'company');
        return record?.folder ? { kind: 'company', id: record.entity.id } : null;
      },
      ready: () => state.settings.initialSyncDone(),
      hint: (owner, whole) => this.scheduler.hint(owner, whole),
      intervalMs,
      sweepEveryMs: config.schedule.unlodgedSweepSeconds * 1000,
      clock: this.parts.sweepClock ?? MONOTONIC_CLOCK,
      logger,
      onError: (error) => this.#onError(error, "judging the firm's unlodged list failed"),
    });
    this.#sweep.start();
  }

  /** The grant was refused: nothing works until `docsync auth login`. */
  get authLost(): boolean {
    return this.#fatal instanceof AuthRequiredError;
  }

  /** The state file could not be used; `/healthz` reports it while the daemon stops. */
  get stateFailure(): StateFailureError | undefined {
    return this.#fatal instanceof StateFailureError ? this.#fatal : undefined;
  }

  /**
   * Where the listeners send a state failure they hit (a webhook that could not be recorded):
   * it stops the daemon like one in a cycle. Anything else they log and answer themselves.
   */
  stateFailed(error: unknown): void {
    this.#stopWith(error);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const { app } = this.parts;
    const quietly = (what: string) => (error: unknown) =>
      app.logger.warn({ err: error }, `${what} failed while stopping`);
    try {
      // A stop during start (a signal, a failure) waits for it, so all it started is closed too.
      await this.#starting?.catch(() => undefined);
      for (const task of this.#tasks) task.stop();
      this.#sweep?.close();
      this.#cancelHousekeeping?.();
      const decided = this.#stopDecisionWatch?.();
      // The scheduler stops taking work first: nothing starts after the signal, not even a sync
      // that was waiting, nor one a webhook answered while intake drains asks for.
      const stopped = this.scheduler.stop();
      this.#shutdown.abort();
      // The syncs under way end at their next request, not after all they queued at the rate.
      app.remote.queue.stop();
      await Promise.allSettled(this.#listeners.intake.map((l) => l.close()));
      await this.#watcher?.close().catch(quietly('closing the watcher'));
      await this.#scanPass?.close().catch(quietly('closing the folder scans'));
      await stopped;
      // A person's decision under way finishes, so its answer is given and its outcome written.
      await decided;
      await this.parts.deps.locks.idle();
      await this.#housekeeping;
      await Promise.allSettled(this.#listeners.observers.map((l) => l.close()));
      if (this.#lock && !this.#lock.release()) {
        app.logger.warn('could not release the instance lock; the next start takes it over');
      }
      app.logger.info('docsync daemon stopped');
      app.close();
    } catch (error) {
      quietly('closing')(error);
    } finally {
      this.#resolveDone();
    }
  }

  /**
   * Daily, beside the cycles rather than through the scheduler: it touches nothing a cycle uses
   * (trash days past retention, temp files untouched for a day, finished rows nothing open
   * depends on), and each prune is one synchronous statement between a cycle's steps, so it never
   * waits for a long cycle nor delays one. Its timer never holds the process open; close()
   * cancels it and waits for a run in progress before closing the database.
   */
  get #housekeepingDeps(): HousekeepingDeps {
    const { app, deps } = this.parts;
    return { local: deps.local, state: app.state, logger: app.logger, now: deps.now };
  }

  #scheduleHousekeeping(): void {
    if (this.#closing) return;
    const deps = this.#housekeepingDeps;
    const now = deps.now();
    const last = deps.state.settings.housekeepingAt() ?? now;
    const delay = Math.min(Math.max(0, last + HOUSEKEEPING_EVERY_MS - now), HOUSEKEEPING_EVERY_MS);
    this.#cancelHousekeeping = this.parts.app.clock.after(
      delay,
      () => {
        this.#housekeeping = housekeepIfDue(deps)
          .then(() => this.#scheduleHousekeeping())
          .catch((error: unknown) => this.#onError(error, 'housekeeping failed'))
          .finally(() => {
            this.#housekeeping = null;
          });
      },
      false,
    );
  }

  #touched(touch: EntityTouch): void {
    try {
      const owner: OwnerRef | null = touch.owner ?? this.#ownerOfFolder(touch.entityFolder);
      // A folder no entity owns (new, renamed, matching nothing): looked at above, at once.
      if (!owner && touch.reason !== 'poll')
        this.#roots
          .check()
          .catch((error: unknown) =>
            this.#onError(error, 'looking above the entity folders failed'),
          );
      // The scanning mode's periodic touches are polls: they take the poll lane, not the
      // watcher's, so they never crowd out a change a user just made.
      const lane = touch.reason === 'poll' ? ('poll' as const) : ('watcher' as const);
      this.scheduler.request(
        owner ? { trigger: 'watcher', owner, lane } : { trigger: 'watcher', lane },
      );
    } catch (error) {
      this.#onError(error, 'a folder change could not be handled');
    }
  }

  #ownerOfFolder(folder: string): OwnerRef | null {
    const record = this.parts.app.state.entities.findByFolder(folder);
    return record ? { kind: record.entity.kind, id: record.entity.id } : null;
  }

  /** One sync (an entity's, or every entity's); what made it fail when it failed. */
  async #cycle(options: CycleOptions): Promise<SyncEnd> {
    const { logger } = this.parts.app;
    const own = !options.partOfRound; // a round's entity is reported with its round
    try {
      const report = await runCycle(this.parts.deps, {
        ...options,
        signal: this.#shutdown.signal,
        honourBackoff: true,
        deleteWindow: this.#deleteWindow,
      });
      if (own) this.#cycleFinished(report.result, report.tripped.length);
      return report;
    } catch (error) {
      if (own) this.#cycleFinished('error', 0, (error as Error).message);
      if (error instanceof AuthRequiredError || isStateFailure(error)) {
        // Nothing will work until a person acts (authorise again, free the disk): stop, and say how.
        this.#stopWith(error);
        return null;
      }
      const owner = options.owners?.length === 1 ? options.owners[0] : undefined;
      logger.error({ err: error, owner }, 'sync failed; it is tried again after a wait');
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /**
   * The holds of removed folders' deletes that end after now (domain/delete-hold.ts): a sync is
   * where they begin. Their entity is synced again when each ends, and judges the delete with
   * every other one not done; a removed folder is a change in the folder, so in the watcher's
   * lane. Holds ending together are asked for together, so their syncs judge them as one.
   */
  #holdEnds(owners: readonly OwnerRef[] | 'all'): LaterWork[] {
    const { heldDeletes } = this.parts.app.state;
    const now = this.parts.deps.now();
    const ends =
      owners === 'all'
        ? heldDeletes.endings(now)
        : owners.flatMap((owner) => {
            const dueAt = heldDeletes.endingOf(owner, now);
            return dueAt === null ? [] : [{ owner, dueAt }];
          });
    return ends.map(({ owner, dueAt }) => ({
      owner,
      dueAt,
      request: { trigger: 'watcher', owner },
    }));
  }

  #cycleFinished(result: CycleResult, railsTripped: number, error?: string): void {
    this.lastCycle = { finishedAt: Date.now(), ok: result === 'ok', ...(error ? { error } : {}) };
    this.parts.onCycle?.(result, railsTripped);
  }

  /** An error outside a cycle: a state failure stops the daemon; anything else is logged. */
  #onError(error: unknown, what: string): void {
    if (isStateFailure(error)) this.#stopWith(error);
    // A request refused or cut by the stop is the stop, not a failure to report.
    else if (error instanceof RunStoppedError && this.#closing)
      this.parts.app.logger.debug({ err: error }, `${what}: docsync is stopping`);
    else this.parts.app.logger.error({ err: error }, what);
  }

  /** Stops for good: the first reason is kept for `finished()` and logged once at fatal. */
  #stopWith(error: unknown): void {
    if (this.#fatal === undefined) {
      const fatal =
        stateFailureOf(error, this.parts.app.config.state.path) ??
        (error instanceof Error ? error : new Error(String(error)));
      this.#fatal = fatal;
      this.parts.app.logger.fatal({ code: (fatal as { code?: unknown }).code }, fatal.message);
    }
    void this.close();
  }
}

/**
 * Polls per second the budget allows: `schedule.maxPollShare` of the rate, less what the sweep of
 * the firm's unlodged list takes (`schedule.unlodgedSweepShare`).
 */
function pollRate(config: Config): number {
  const { maxPollShare, unlodgedSweepShare } = config.schedule;
  return config.queue.requestsPerSecond * (maxPollShare - unlodgedSweepShare);
}
