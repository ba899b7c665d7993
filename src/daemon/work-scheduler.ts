/**
 * The daemon's work, an entity at a time. The entity is the unit of work and of
 * mutual exclusion: no entity is ever in two syncs at once, but syncs of different entities
 * run side by side, in lanes:
 *   1. pushes (every push request takes the first lane in the request queue, whatever sync
 *      makes it; settling pushes in doubt too);
 *   2. webhook events;
 *   3. entities the watcher reported;
 *   4. polling: rounds over every entity, hot polls, and the companies the firm-wide sweep points
 *      at (domain/poll-policy.ts; daemon/unlodged-sweep.ts).
 * What starts next, of all of these, is one pure pick's (domain/work-pick.ts), asked in one loop.
 * Webhook and watcher syncs have slots of their own, so they never wait for a poll round; the
 * poll lane has a few slots, so it holds only a few requests in the queue, behind everyone else.
 *
 * Requests for an entity that is already waiting merge into its one sync (a burst of watcher
 * events costs one sync); a request for an entity in a sync now waits for it to end, then runs.
 *
 * The exclusion itself is the entity's lock (engine/entity-locks.ts), which every sync takes and
 * so does everything else that works on an entity (a person's decision, forgetting it). The
 * scheduler only keeps from starting a sync whose entity is busy, so no slot waits on a lock:
 * it asks the lock table, and pumps again when a lock comes free.
 *
 * A request resolves with what became of the sync that included it (`SyncOutcome`).
 *
 * What is asked for an entity is also a row in the state (state/entity-work-repo.ts), written
 * before the request returns and settled where the sync ends: a success clears what was asked
 * before it started, a failure sets when it is tried again (`EVENT_BACKOFF`), a stop leaves it.
 * So the work outlives the process: `resume` at the next start asks for what is left, first. A
 * webhook event is an observation on its entity's row and settles with it (webhook-work.ts).
 * Polls are policy, not rows: the round, the hot and the hinted entities are chosen again.
 */
import { assertNever } from '../domain/assert-never.js';
import { backoff, EVENT_BACKOFF } from '../domain/backoff.js';
import { LANE_PRIORITY, type Lane } from '../domain/lanes.js';
import { ownerKey } from '../domain/owner-key.js';
import {
  hotIntervalMs,
  isHot,
  POLL_TIMES,
  type PollTimes,
  SHARE_WINDOW_MS,
} from '../domain/poll-policy.js';
import type { OwnerRef } from '../domain/types.js';
import {
  ECHO_MS,
  type HintedEntity,
  type HotEntity,
  type PollKind,
  pickWork,
  requestLane,
  type WorkView,
} from '../domain/work-pick.js';
import type { EntityLocks } from '../engine/entity-locks.js';
import type { CycleOptions, CycleReport } from '../engine/run-cycle.js';
import type { CycleTrigger } from '../state/cycle-repo.js';
import type { EntityWorkRepo, WorkRow } from '../state/entity-work-repo.js';

export interface CycleRequest {
  readonly trigger: CycleTrigger;
  /** Absent: every entity (a poll round). */
  readonly owner?: OwnerRef;
  readonly fullReconcile?: boolean;
  /** Read the entity list again first. */
  readonly refreshEntities?: boolean;
  /** The lane, when the trigger does not say it (the watcher's scanning mode polls). */
  readonly lane?: Lane;
  /** The entity's row holds this ask already (a webhook event recorded it): not observed again. */
  readonly recorded?: boolean;
}

/**
 * What became of the sync a request asked for: `synced` (it ran to its end), `failed` (it
 * threw: the service or the folder could not be read), `stopped` (the daemon stopped before it
 * ran, or while it ran).
 */
export type SyncOutcome = 'synced' | 'failed' | 'stopped';

/** What a sync ended with: its report, or what made it fail (null: a failure said elsewhere). */
export type SyncEnd = CycleReport | Error | null;

/** The outcome of a sync from its report: null or an error when it failed. */
export function outcomeOf(report: SyncEnd): SyncOutcome {
  if (report === null || report instanceof Error) return 'failed';
  return report.result === 'interrupted' ? 'stopped' : 'synced';
}

/** What the scheduler runs work on: the daemon. */
export interface SchedulerHost {
  /** One entity's sync (or all entities' when `owners` is absent); an error when it failed. */
  run(options: CycleOptions, lane: Lane): Promise<SyncEnd>;
  /**
   * A round begins: the entities to list, stalest first, or `whole` when the round must be one
   * cycle over every entity (the first sync, or a root that is not ready).
   */
  startRound(
    full: boolean,
  ): Promise<{ readonly owners: readonly OwnerRef[]; readonly firstSync?: boolean } | 'whole'>;
  /** A round ended; `reports` are its entities' syncs. */
  finishRound(full: boolean, reports: readonly (CycleReport | null)[]): void;
  /** Polls per second the budget allows (`queue.requestsPerSecond` × `schedule.maxPollShare`). */
  readonly pollsPerSecond: number;
  /** When true, polls are spaced to `pollsPerSecond` (a share of the rate below the whole). */
  readonly pacePolls: boolean;
  readonly now: () => number;
  /**
   * Calls `fire` once `ms` have passed on the clock of `now` (domain/clock.ts), without holding
   * the process open: when a row whose time has not come falls due.
   */
  readonly after: (ms: number, fire: () => void) => () => void;
  /** The policy's times (default POLL_TIMES); a benchmark scaling time down scales them too. */
  readonly pollTimes?: PollTimes;
  /** The entities' locks: a busy entity's sync waits in the queue, not in a slot. */
  readonly locks: Pick<EntityLocks, 'isBusy' | 'onFree'>;
  /**
   * Work a sync left for later, by when it is due: deletes waiting for their hold's end. Asked
   * after each sync (every entity's, for `all`), once its own row is settled.
   */
  laterWork(owners: readonly OwnerRef[] | 'all'): readonly LaterWork[];
  /**
   * The rows of work asked for (state/entity-work-repo.ts); the daemon's settle the webhook events
   * observed on them too (webhook-work.ts). `seen`: the observation the failed sync started at.
   */
  readonly work: Pick<EntityWorkRepo, 'observe' | 'seenSoFar' | 'settle' | 'settleAll' | 'all'> & {
    failed(
      owner: OwnerRef,
      error: string,
      dueAfter: (attempts: number) => number,
      seen: number,
    ): WorkRow | null;
  };
}

export interface LaterWork {
  readonly owner: OwnerRef;
  readonly dueAt: number;
  readonly request: CycleRequest;
}

export interface SchedulerLimits {
  /** Webhook and watcher syncs at once. */
  readonly urgent: number;
  /** Poll syncs at once: enough to keep the rate busy, few enough to queue little. */
  readonly poll: number;
}

interface Work {
  readonly owner: OwnerRef;
  trigger: CycleTrigger;
  lane: Lane;
  full: boolean;
  refresh: boolean;
  readonly waiters: ((outcome: SyncOutcome) => void)[];
  /** Part of the first sync: what it pulls is catching up, not a sign the entity is active. */
  readonly firstSync?: boolean;
  /** The kind of poll (poll lane only). */
  readonly poll?: 'hot' | 'round' | 'hinted';
}

interface Round {
  readonly full: boolean;
  readonly firstSync: boolean;
  /** Its entities, and when it began: the status page shows its progress. */
  readonly total: number;
  readonly startedAt: number;
  readonly waiters: ((outcome: SyncOutcome) => void)[];
  keys: string[];
  inFlight: number;
  readonly reports: (CycleReport | null)[];
}

interface Hint {
  /** The first hint since the entity's last listing: hints are served in this order. */
  readonly since: number;
  /** The last one: only a sync started after it has seen everything hinted. */
  readonly latest: number;
  readonly whole: boolean;
}

export class WorkScheduler {
  readonly #queued = new Map<string, Work>();
  readonly #running = new Map<string, Promise<void>>();
  /** The lane each running sync took (work-pick rule 1). */
  readonly #runningLane = new Map<string, Lane>();
  /** When entities' last watcher syncs ended (work-pick rule 1), dropped once older. */
  readonly #watcherEndedAt = new Map<string, number>();
  readonly #owners = new Map<string, OwnerRef>();
  /** When each entity last synced successfully: what the scan pass compares a change with. */
  readonly #listedAt = new Map<string, number>();
  /**
   * When each entity's last poll or sync ended, listed or failed: the hot interval counts from
   * it, so a failing entity waits its turn instead of being repolled at once.
   */
  readonly #triedAt = new Map<string, number>();
  readonly #changedAt = new Map<string, number>();
  /** Entities the firm-wide sweep pointed at, until a sync started after the hint ends. */
  readonly #hinted = new Map<string, Hint>();
  /** Entities a hinted poll found changed: hot once the round lists them (`#noteActivity`). */
  readonly #hotAtRound = new Set<string>();
  #recent: { readonly at: number; readonly kind: 'hot' | 'round' }[] = [];
  /** Urgent slots in use, per lane (a sync keeps the lane it started in). */
  readonly #urgentInUse: Partial<Record<Lane, number>> = { webhook: 0, watcher: 0 };
  #pollInUse = 0;
  #round: Round | null = null;
  #roundStarting: Promise<void> | null = null;
  #nextRound: { full: boolean; waiters: ((outcome: SyncOutcome) => void)[] } | null = null;
  #pollTimer: NodeJS.Timeout | undefined;
  #nextPollAt = 0;
  /** Rows whose time has not come (a failed sync's backoff, a hold's end), and their one timer. */
  readonly #later = new Map<string, { readonly request: CycleRequest; readonly dueAt: number }>();
  #cancelLater: (() => void) | undefined;
  #stopped = false;

  readonly #unsubscribe: () => void;

  constructor(
    private readonly host: SchedulerHost,
    private readonly onError: (error: unknown) => void,
    private readonly limits: SchedulerLimits = { urgent: 8, poll: 4 },
  ) {
    // A lock a person's decision (or a whole cycle) held comes free: what waits for it can start.
    this.#unsubscribe = host.locks.onFree(() => this.#pump());
  }

  /** Resolves, when the sync (or round) that includes this request has ended, with its outcome. */
  request(request: CycleRequest): Promise<SyncOutcome> {
    if (this.#stopped) return Promise.resolve('stopped');
    if (!request.owner) return this.#requestRound(request.fullReconcile ?? false);
    const owner = request.owner;
    const key = ownerKey(owner);
    this.#owners.set(key, owner);
    const lane = requestLane(
      request.lane ?? laneOf(request.trigger),
      request.trigger === 'webhook',
      {
        running: this.#runningLane.get(key),
        waiting: this.#queued.get(key)?.lane,
        watcherEndedAgoMs: this.#watcherEndedAgo(key),
      },
    );
    // A webhook or a user's change says the entity is active: poll it more often for a while.
    if (lane === 'webhook' || lane === 'watcher') this.#changedAt.set(key, this.host.now());
    if (!request.recorded) this.#record(owner, request, lane);
    return this.#queue(key, owner, request, lane);
  }

  /**
   * Asks for the entity's sync at `dueAt` (a hold's end): recorded now, started then. A request
   * before then starts it sooner, and the row's time moves up with it.
   */
  requestAt(request: CycleRequest, dueAt: number): void {
    if (!request.owner) return;
    if (this.#stopped) return;
    const lane = request.lane ?? laneOf(request.trigger);
    this.#record(request.owner, request, lane, dueAt);
    this.#owners.set(ownerKey(request.owner), request.owner);
    this.#startAt(request, dueAt);
  }

  /**
   * Asks for what the rows left by the last run hold, before anything else is asked for: those
   * due now at once, the others when their time comes. A row is asked for as it was, unrecorded
   * again: its first sighting and its attempts stand.
   */
  resume(): void {
    let rows: WorkRow[];
    try {
      rows = this.host.work.all();
    } catch (error) {
      this.onError(error);
      return;
    }
    for (const row of rows) {
      this.#owners.set(ownerKey(row.owner), row.owner);
      this.#startAt(requestOf(row), row.dueAt);
    }
  }

  #startAt(request: CycleRequest, dueAt: number): void {
    if (this.#stopped) return;
    const owner = request.owner!;
    const key = ownerKey(owner);
    if (dueAt <= this.host.now()) {
      this.#later.delete(key);
      void this.#queue(key, owner, request, request.lane ?? laneOf(request.trigger));
      return;
    }
    const was = this.#later.get(key);
    if (was && was.dueAt <= dueAt) return;
    this.#later.set(key, { request, dueAt });
    this.#armLater();
  }

  #armLater(): void {
    this.#cancelLater?.();
    if (this.#stopped || this.#later.size === 0) return;
    const first = Math.min(...[...this.#later.values()].map((l) => l.dueAt));
    this.#cancelLater = this.host.after(Math.max(0, first - this.host.now()), () => {
      this.#cancelLater = undefined;
      for (const { request, dueAt } of [...this.#later.values()]) this.#startAt(request, dueAt);
      this.#armLater();
    });
  }

  /** The row of an entity's request: the work is kept even if the process ends before it runs. */
  #record(owner: OwnerRef, request: CycleRequest, lane: Lane, dueAt?: number): void {
    try {
      this.host.work.observe(owner, {
        reason: request.trigger,
        lane,
        at: this.host.now(),
        ...(dueAt === undefined ? {} : { dueAt }),
        ...(request.fullReconcile ? { full: true } : {}),
        ...(request.refreshEntities ? { refresh: true } : {}),
      });
    } catch (error) {
      // The sync is still asked for: only a restart before it ends would miss it.
      this.onError(error);
    }
  }

  #queue(key: string, owner: OwnerRef, request: CycleRequest, lane: Lane): Promise<SyncOutcome> {
    const done = new Promise<SyncOutcome>((resolve) =>
      this.#enqueue(key, owner, request, lane, resolve),
    );
    this.#pump();
    return done;
  }

  /**
   * The firm-wide sweep saw a change in this entity: list it at once (work-pick rules 9, 10),
   * whole when `whole` (a document left the list: only a whole listing shows a deletion). The
   * hint stands until a sync of the entity that started after it ends.
   */
  hint(owner: OwnerRef, whole: boolean): void {
    if (this.#stopped) return;
    const key = ownerKey(owner);
    this.#owners.set(key, owner);
    const now = this.host.now();
    const was = this.#hinted.get(key);
    this.#hinted.set(key, {
      since: was?.since ?? now,
      latest: now,
      whole: whole || (was?.whole ?? false),
    });
    this.#pump();
  }

  /** When the entity's last sync in this daemon finished (0: none yet). */
  syncedAt(owner: OwnerRef): number {
    return this.#listedAt.get(ownerKey(owner)) ?? 0;
  }

  /** What waits and runs, for the status page and `/metrics`. */
  snapshot() {
    const waiting = { push: 0, webhook: 0, watcher: 0, poll: 0 } satisfies Record<Lane, number>;
    for (const work of this.#queued.values()) waiting[work.lane]++;
    return {
      waiting,
      running: this.#running.size,
      round: this.#round
        ? {
            full: this.#round.full,
            left: this.#round.keys.length + this.#round.inFlight,
            total: this.#round.total,
            startedAt: this.#round.startedAt,
          }
        : null,
      hot: this.#hot(this.host.now()).length,
      hinted: this.#hinted.size,
    };
  }

  /**
   * Starts nothing more, from the moment it is called: what waits is dropped (its waiters hear
   * `stopped`), and no poll is picked again. Resolves when what runs has ended.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe();
    clearTimeout(this.#pollTimer);
    this.#cancelLater?.();
    for (const work of this.#queued.values())
      for (const resolve of work.waiters) resolve('stopped');
    this.#queued.clear();
    for (const resolve of this.#nextRound?.waiters ?? []) resolve('stopped');
    this.#nextRound = null;
    await this.#roundStarting;
    await Promise.allSettled([...this.#running.values()]);
    const round = this.#round;
    this.#round = null;
    if (round) {
      // The round ends here, recorded with what it did: not left "running" until the next start.
      this.#finishQuietly(round.full, round.reports);
      for (const resolve of round.waiters) resolve('stopped');
    }
  }

  #enqueue(
    key: string,
    owner: OwnerRef,
    request: CycleRequest,
    lane: Lane,
    resolve: (outcome: SyncOutcome) => void,
  ) {
    let work = this.#queued.get(key);
    if (!work) {
      work = {
        owner,
        trigger: request.trigger,
        lane,
        full: false,
        refresh: false,
        waiters: [],
      };
      this.#queued.set(key, work);
    }
    if (LANE_PRIORITY[lane] > LANE_PRIORITY[work.lane]) {
      work.lane = lane;
      work.trigger = request.trigger;
    }
    work.full ||= request.fullReconcile ?? false;
    work.refresh ||= request.refreshEntities ?? false;
    work.waiters.push(resolve);
  }

  /**
   * Starts what the pick names (domain/work-pick.ts), one at a time, until it names a wait: then
   * one timer, when the wait has an end. Whatever changes (a request, a hint, a round, a sync's
   * end, a lock come free) pumps again.
   */
  #pump(): void {
    clearTimeout(this.#pollTimer);
    while (!this.#stopped) {
      const now = this.host.now();
      const pick = pickWork(this.#view(now));
      switch (pick.kind) {
        case 'start-queued': {
          const work = this.#queued.get(pick.key)!;
          this.#queued.delete(pick.key);
          this.#start(pick.key, work, pick.slot);
          break;
        }
        case 'start-poll':
          this.#nextPollAt = now + 1000 / this.host.pollsPerSecond;
          // A hinted poll is a hot one that cannot wait: it counts in the hot polls' share.
          this.#recent.push({ at: now, kind: pick.poll === 'round' ? 'round' : 'hot' });
          this.#startPoll(pick.key, pick.poll);
          break;
        case 'wait':
          if (pick.untilMs !== null) this.#wakeAt(pick.untilMs);
          return;
        default:
          assertNever(pick);
      }
    }
  }

  /** What the pick needs to know, as it stands now. */
  #view(now: number): WorkView {
    this.#recent = this.#recent.filter((r) => now - r.at < SHARE_WINDOW_MS);
    const hot = this.#hot(now);
    return {
      queued: [...this.#queued].map(([key, work]) => ({ key, lane: work.lane })),
      busy: { has: (key) => this.#running.has(key) || this.host.locks.isBusy(key) },
      urgent: { slots: this.limits.urgent, inUse: this.#urgentInUse },
      poll: { slots: this.limits.poll, inUse: this.#pollInUse },
      polls: {
        now,
        paced: this.host.pacePolls,
        nextPollAt: this.#nextPollAt,
        round: this.#round?.keys ?? [],
        hot,
        hinted: [...this.#hinted].map(([key, h]): HintedEntity => ({ key, hintedAt: h.since })),
        hotIntervalMs: hotIntervalMs(
          hot.length,
          this.host.pollsPerSecond,
          (this.host.pollTimes ?? POLL_TIMES).minHotIntervalMs,
        ),
        recent: {
          hot: this.#recent.filter((r) => r.kind === 'hot').length,
          round: this.#recent.filter((r) => r.kind === 'round').length,
        },
      },
    };
  }

  #start(
    key: string,
    work: Work,
    slot: 'poll-slot' | 'urgent-slot',
    onReport?: (r: CycleReport | null) => void,
  ) {
    if (slot === 'poll-slot') this.#pollInUse++;
    else this.#urgentInUse[work.lane] = (this.#urgentInUse[work.lane] ?? 0) + 1;
    const startedAt = this.host.now();
    const seen = this.host.work.seenSoFar();
    const options: CycleOptions = {
      trigger: work.trigger,
      fullReconcile: work.full,
      owners: [work.owner],
      ...(work.refresh ? { refreshEntities: true } : {}),
      ...(onReport ? { partOfRound: true } : {}),
    };
    const running = this.host
      .run(options, work.lane)
      .catch((error: unknown): SyncEnd => {
        this.onError(error);
        return error instanceof Error ? error : null;
      })
      .then((end) => {
        const now = this.host.now();
        const report = end instanceof Error ? null : end;
        this.#settleRow(work, seen, end, now);
        if (report) this.#listedAt.set(key, now);
        this.#triedAt.set(key, now);
        if (report) this.#noteActivity(key, work, report, now);
        if (work.lane === 'watcher') this.#watcherEndedAt.set(key, now);
        this.#settleHint(key, startedAt, work.full);
        if (slot === 'poll-slot') this.#pollInUse--;
        else this.#urgentInUse[work.lane]!--;
        this.#running.delete(key);
        this.#runningLane.delete(key);
        const outcome = outcomeOf(end);
        for (const resolve of work.waiters) resolve(outcome);
        onReport?.(report);
        this.#pump();
      });
    this.#running.set(key, running);
    this.#runningLane.set(key, work.lane);
  }

  /**
   * The entity's row after its sync: done up to what was seen when the sync started, tried again
   * after the backoff when it failed, left as it is when it stopped.
   */
  #settleRow(work: Work, seen: number, end: SyncEnd, now: number): void {
    const outcome = outcomeOf(end);
    if (outcome === 'stopped') return;
    this.#quietly(() => {
      if (outcome === 'synced') {
        // Nothing left: a retry waiting for the entity (its row had failed) is moot.
        if (this.host.work.settle(work.owner, seen, work.full))
          this.#later.delete(ownerKey(work.owner));
      } else {
        const error = end instanceof Error ? end.message : 'the sync failed';
        const row = this.host.work.failed(
          work.owner,
          error,
          (attempts) => now + backoff(attempts, EVENT_BACKOFF),
          seen,
        );
        if (row) this.#startAt(requestOf(row), row.dueAt);
      }
      this.#takeLaterWork([work.owner]);
    });
  }

  /** Records what the syncs of `owners` left for later, and starts it when it falls due. */
  #takeLaterWork(owners: readonly OwnerRef[] | 'all'): void {
    for (const later of this.host.laterWork(owners)) this.requestAt(later.request, later.dueAt);
  }

  /** How long ago the entity's last watcher sync ended; undefined when not within ECHO_MS. */
  #watcherEndedAgo(key: string): number | undefined {
    const endedAt = this.#watcherEndedAt.get(key);
    if (endedAt === undefined) return undefined;
    const ago = this.host.now() - endedAt;
    if (ago < ECHO_MS) return ago;
    this.#watcherEndedAt.delete(key);
    return undefined;
  }

  /**
   * What a sync found makes its entity hot (listed again often for a while: work-pick rule 8),
   * but not what the first sync pulled (catching up, not activity), and a change a hinted poll
   * found only once the round lists the entity. The hint is there to bring that change early;
   * counted from it, the entity turned hot a round sooner than without the sweep, and at firm
   * size those extra hot polls made the round longer, delaying every change the sweep cannot
   * see (docs/benchmarks.md). From the round on the entity is hot just
   * as it would have been without the sweep, so the hint costs the sweep's share and no more.
   */
  #noteActivity(key: string, work: Work, report: CycleReport, now: number): void {
    if (work.firstSync) return;
    if (report.actions > 0 && work.poll === 'hinted') this.#hotAtRound.add(key);
    else if (report.actions > 0) this.#changedAt.set(key, now);
    if (work.poll === 'round' && this.#hotAtRound.delete(key)) this.#changedAt.set(key, now);
  }

  /**
   * A sync that started after the entity's last hint has seen what the sweep saw (a whole hint
   * needs a whole listing). It ends the hint even when it failed: the round and the hot polls
   * try again, a hint would retry at once.
   */
  #settleHint(key: string, startedAt: number, full: boolean): void {
    const hint = this.#hinted.get(key);
    if (hint && hint.latest <= startedAt && (full || !hint.whole)) this.#hinted.delete(key);
  }

  #requestRound(full: boolean): Promise<SyncOutcome> {
    return new Promise((resolve) => {
      if (this.#round || this.#roundStarting) {
        // A tick while a round runs is kept as one round to follow, never more.
        this.#nextRound ??= { full: false, waiters: [] };
        this.#nextRound.full ||= full;
        this.#nextRound.waiters.push(resolve);
        return;
      }
      this.#roundStarting = this.#beginRound(full, [resolve]).finally(() => {
        this.#roundStarting = null;
      });
    });
  }

  async #beginRound(full: boolean, waiters: ((outcome: SyncOutcome) => void)[]): Promise<void> {
    let start: Awaited<ReturnType<SchedulerHost['startRound']>>;
    try {
      start = await this.host.startRound(full);
    } catch (error) {
      this.onError(error);
      start = { owners: [] };
    }
    if (this.#stopped) {
      // Stopped while the round was being set up: it ends here, having listed nothing.
      if (start !== 'whole') this.#finishQuietly(full, []);
      for (const resolve of waiters) resolve('stopped');
      return;
    }
    if (start === 'whole') {
      // One cycle over every entity, which takes each entity's lock as it reaches it.
      const seen = this.host.work.seenSoFar();
      const end = await this.host
        .run({ trigger: 'cron', fullReconcile: full }, 'poll')
        .catch((error: unknown) => this.onError(error));
      // One that did all it found did every entity's work asked for before it began.
      if (end && !(end instanceof Error) && end.result === 'ok' && !this.#stopped)
        this.#quietly(() => this.host.work.settleAll(seen, full));
      if (!this.#stopped) this.#quietly(() => this.#takeLaterWork('all'));
      this.#round = {
        full,
        firstSync: false,
        total: 0,
        startedAt: this.host.now(),
        waiters,
        keys: [],
        inFlight: 0,
        reports: [],
      };
      this.#endRoundIfDone(false);
      return;
    }
    for (const owner of start.owners) this.#owners.set(ownerKey(owner), owner);
    this.#round = {
      full,
      firstSync: start.firstSync ?? false,
      total: start.owners.length,
      startedAt: this.host.now(),
      waiters,
      keys: start.owners.map(ownerKey),
      inFlight: 0,
      reports: [],
    };
    this.#pump();
    this.#endRoundIfDone(true);
  }

  #endRoundIfDone(record: boolean): void {
    const round = this.#round;
    if (!round || round.keys.length > 0 || round.inFlight > 0) return;
    this.#round = null;
    if (record) this.#finishQuietly(round.full, round.reports);
    for (const resolve of round.waiters) resolve('synced');
    const next = this.#nextRound;
    this.#nextRound = null;
    if (next && !this.#stopped) {
      this.#roundStarting = this.#beginRound(next.full, next.waiters).finally(() => {
        this.#roundStarting = null;
      });
    }
  }

  #quietly(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.onError(error);
    }
  }

  #finishQuietly(full: boolean, reports: readonly (CycleReport | null)[]): void {
    try {
      this.host.finishRound(full, reports);
    } catch (error) {
      this.onError(error);
    }
  }

  #hot(now: number): HotEntity[] {
    const hot: HotEntity[] = [];
    for (const [key, changedAt] of this.#changedAt) {
      if (!isHot(changedAt, now, (this.host.pollTimes ?? POLL_TIMES).hotWindowMs)) {
        this.#changedAt.delete(key);
      } else hot.push({ key, listedAt: this.#triedAt.get(key) ?? 0 });
    }
    return hot;
  }

  #startPoll(key: string, kind: PollKind): void {
    const owner = this.#owners.get(key)!;
    const round = this.#round;
    const inRound = kind === 'round' && round !== null;
    if (inRound) {
      round.keys = round.keys.filter((k) => k !== key);
      round.inFlight++;
    }
    const work: Work = {
      owner,
      trigger: 'cron',
      lane: 'poll',
      full: inRound ? round.full : kind === 'hinted' && (this.#hinted.get(key)?.whole ?? false),
      refresh: false,
      waiters: [],
      firstSync: inRound && round.firstSync,
      poll: inRound ? 'round' : kind,
    };
    this.#start(
      key,
      work,
      'poll-slot',
      inRound
        ? (report) => {
            round.reports.push(report);
            round.inFlight--;
            this.#endRoundIfDone(true);
          }
        : undefined,
    );
  }

  #wakeAt(at: number): void {
    clearTimeout(this.#pollTimer);
    this.#pollTimer = setTimeout(() => this.#pump(), Math.max(0, at - this.host.now()));
    this.#pollTimer.unref();
  }
}

/** What a row asks for, as the request that wrote it would have. */
function requestOf(row: WorkRow): CycleRequest & { readonly owner: OwnerRef } {
  return {
    trigger: triggerOf(row),
    owner: row.owner,
    lane: row.lane,
    fullReconcile: row.full,
    refreshEntities: row.refresh,
  };
}

/** The trigger a row's sync is recorded with: a person's first, then what its lane serves. */
function triggerOf(row: WorkRow): CycleTrigger {
  if (row.reasons.includes('manual')) return 'manual';
  if (row.lane === 'webhook' || row.lane === 'push') return 'webhook';
  return row.lane === 'poll' ? 'cron' : 'watcher';
}

function laneOf(trigger: CycleTrigger): Lane {
  // A person who pressed "Sync now" is waiting for it, as urgently as a webhook's sender.
  if (trigger === 'webhook' || trigger === 'manual') return 'webhook';
  if (trigger === 'cron') return 'poll';
  return 'watcher';
}
