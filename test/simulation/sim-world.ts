/**
 * One seed's world: the simulator on port 0 (the service; it outlives crashes), a real temp
 * folder and SQLite state file, and the whole daemon in-process (`Daemon` with its scheduler,
 * lanes, webhook receiver, watcher, scan pass, cron and decision watch), as `docsync run` wires
 * it, but for what the simulation takes in hand:
 * - the ports are wrapped (port-wrappers.ts) and the engine gets the failpoint hook;
 * - the watcher's events come from the harness (`touch`), not from the OS;
 * - the timers are fake (the runner installs them), so cron, the settle waits, hot polls and
 *   retries fire only when the harness says;
 * - the client does not retry: a fault fails the request at once, as a sync would see it after
 *   its retries, and no hidden wait on a timer holds a request in flight;
 * - the status page is off; its actions are called directly (`page`);
 * - every person's decision the daemon runs under an entity's lock (the page's, and those a
 *   command hands over) is shown to the harness (`SimDaemon.withEntity`).
 * A crash ends the daemon's life where it stands (everything parked is dropped, the state file
 * closed, later calls of that life refused) and `startDaemon` begins the next from what was
 * persisted.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Config, configSchema } from '../../src/config/schema.js';
import { Daemon, type DaemonParts } from '../../src/daemon/daemon.js';
import { startListeners } from '../../src/daemon/daemon-listeners.js';
import { REAL_CLOCK } from '../../src/domain/clock.js';
import type { OwnerRef } from '../../src/domain/types.js';
import type { EngineDeps } from '../../src/engine/engine-deps.js';
import { engineSettings } from '../../src/engine/engine-settings.js';
import {
  type EntityLease,
  EntityLocks,
  type LockViolation,
} from '../../src/engine/entity-locks.js';
import type { Failpoint, FailpointSite } from '../../src/engine/failpoints.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import type { WatchSource } from '../../src/local/watcher.js';
import { createLogger } from '../../src/log/create-logger.js';
import type { OperatorDeps } from '../../src/operator/operator-deps.js';
import { createRemote, type Remote } from '../../src/remote/create-client.js';
import type { SeedOption, Simulator } from '../../src/simulator/index.js';
import { startSimulator } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import type { WebhookReceiver } from '../../src/triggers/webhook-receiver.js';
import { Metrics } from '../../src/web/metrics.js';
import { operatorActions } from '../../src/web/operator-actions.js';
import type { OperatorActions } from '../../src/web/page-actions.js';
import { CrashedError, ParkBoard } from './park-board.js';
import { type PortHooks, servedPauses, TrackedRemote, trackedLocal } from './port-wrappers.js';

export const WEBHOOK_CLIENT_CODE = 'DOCSYNC';
export const WEBHOOK_SECRET = 'simulation-secret';
/** The watcher's settle time (virtual). */
export const SETTLE_MS = 1000;

export interface WorldOptions {
  readonly firm: SeedOption;
  /** `safety`: the rails (the random runs raise them: random deletes pass 50 % easily). */
  readonly safety?: { readonly maxDeletePercent: number; readonly maxDeleteCount: number };
  /** `queue.concurrency`: documents and entities a sync runs at once (1 unless told). */
  readonly concurrency?: number;
  /** `safety.deleteHoldSeconds` (60 unless told). */
  readonly deleteHoldSeconds?: number;
}

/** What the world asks of the harness that drives it. */
export interface WorldHarness extends Omit<PortHooks, 'alive' | 'parkAnswer' | 'answersLost'> {
  /** Reached a failpoint: parks there or not (a chain's start always parks). */
  failpoint(life: Life, step: Failpoint, site: FailpointSite): Promise<void>;
  /** The daemon's lock counted work on an entity without its lock. */
  lockViolation(violation: LockViolation): void;
  /** An operator's decision on one entity's folder, from the page (`page`) or the command line. */
  operatorJob<T>(
    life: Life,
    owner: OwnerRef,
    job: () => Promise<T>,
    via: 'page' | 'cli',
  ): Promise<T>;
}

/** One life of the daemon: from its start to its stop or crash. */
export interface Life {
  readonly n: number;
  dead: boolean;
  readonly state: StateStore;
  readonly client: Remote;
  readonly local: FsLocalStore;
  readonly daemon: Daemon;
  readonly deps: EngineDeps;
  /** The status page's actions, as the page calls them (through the scheduler). */
  readonly page: OperatorActions;
  /** What `docsync conflicts` and `docsync deletes` get: the state and the folder, no daemon. */
  readonly cli: OperatorDeps;
  readonly watch: HarnessWatch;
  receiverUrl: string;
  /** The configuration it runs with, as `docsync run` reads it. */
  readonly config: Config;
}

export class SimWorld {
  readonly board = new ParkBoard();
  readonly root: string;
  readonly stateFile: string;
  /** The daemon's log lines of warn and worse, the last few (printed with a failing trace). */
  readonly log: string[] = [];
  #life: Life | null = null;
  #lives = 0;

  private constructor(
    readonly sim: Simulator,
    readonly dir: string,
    private readonly options: WorldOptions,
    private readonly harness: WorldHarness,
  ) {
    this.root = path.join(dir, 'documents');
    this.stateFile = path.join(dir, 'state', 'docsync.db');
    mkdirSync(this.root, { recursive: true });
    mkdirSync(path.dirname(this.stateFile), { recursive: true });
  }

  static async create(options: WorldOptions, harness: WorldHarness): Promise<SimWorld> {
    const sim = await startSimulator({ rateLimitPerSecond: 0, seed: options.firm });
    // tmpfs where there is one: every write is flushed (temp + fsync + rename), and a seed is
    // meant to cost milliseconds, not a disk's flushes.
    const base = process.env.SIM_TMPDIR ?? (isDir('/dev/shm') ? '/dev/shm' : tmpdir());
    return new SimWorld(sim, mkdtempSync(path.join(base, 'docsync-sim-')), options, harness);
  }

  get life(): Life {
    if (!this.#life) throw new Error('no daemon is running');
    return this.#life;
  }

  get running(): boolean {
    return this.#life !== null && !this.#life.dead;
  }

  /** Starts a daemon on what the last one left (the first: an empty folder and state). */
  async startDaemon(): Promise<void> {
    const n = ++this.#lives;
    const config = this.#config();
    const logger = createLogger({
      level: process.env.SIM_LOG_LEVEL ?? 'warn',
      pretty: false,
      destination: {
        write: (line: string) => {
          this.log.push(line.trimEnd());
          if (this.log.length > (process.env.SIM_LOG_LEVEL ? 5000 : 60)) this.log.shift();
        },
      },
    });
    const state = StateStore.open(this.stateFile);
    state.tokens.seedRefreshToken(this.sim.admin.mintRefreshToken());
    // A 429's pause counts as served by the retries the client does not make (port-wrappers.ts).
    const pauses = servedPauses();
    const client = createRemote({
      time: pauses.time,
      onResponse: pauses.onResponse,
      // The simulator's link host is plain http on loopback: allowed only when listed.
      links: { hosts: [this.sim.linkUrl] },
      baseUrl: this.sim.apiUrl,
      clientId: this.sim.clientId,
      clientSecret: this.sim.clientSecret,
      scope: 'cas',
      tokenStore: state.tokens,
      requestsPerSecond: Number.POSITIVE_INFINITY,
      concurrency: 4,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const local = new FsLocalStore({
      root: this.root,
      settleSeconds: 0,
      metaCache: state.metaFiles,
    });
    // Assigned below, once the daemon it holds is made; the hooks read it only after.
    let life: Life;
    const hooks: PortHooks = {
      alive: () => {
        if (life.dead) throw new CrashedError();
      },
      holdAnswer: (label) => this.harness.holdAnswer(label),
      parkAnswer: (label) => {
        if (life.dead) throw new CrashedError();
        return this.board.park('answer', label, n);
      },
      beforeWrite: (write) => this.harness.beforeWrite(write),
      afterWrite: (write, result, lost) => this.harness.afterWrite(write, result, lost),
      localCall: (method, args) => this.harness.localCall(method, args),
      answersLost: () => this.sim.admin.lostAnswers(),
      diskCall: (method, args, call) => this.harness.diskCall(method, args, call),
    };
    const wrappedLocal = trackedLocal(local, this.board, hooks);
    const deps: EngineDeps = {
      remote: new TrackedRemote(client.client, this.board, hooks),
      local: wrappedLocal,
      state,
      logger,
      settings: engineSettings(config, 0),
      now: () => Date.now(),
      clockOffsetMs: () => client.clock.offsetMs,
      failpoint: async (step, site) => {
        if (life.dead) throw new CrashedError();
        await this.harness.failpoint(life, step, site);
        if (life.dead) throw new CrashedError();
      },
      // One table per process, as compose.ts makes it: a new life starts with no lock held.
      locks: new EntityLocks(
        (violation) => {
          if (!life.dead) this.harness.lockViolation(violation);
        },
        () => Date.now(),
      ),
    };
    const operatorDeps: OperatorDeps = {
      state,
      local: wrappedLocal,
      webUrl: config.service.webUrl,
      onRemoteDelete: config.onRemoteDelete,
      now: () => Date.now(),
      locks: deps.locks,
    };
    const watch = new HarnessWatch();
    let page: OperatorActions | undefined;
    const host = {
      config,
      logger,
      state,
      // The system clock, on the timers the runner faked.
      clock: REAL_CLOCK,
      remote: { queue: client.queue, links: client.links },
      close: () => {
        client.queue.clear();
        state.close();
      },
    };
    const daemon = new SimDaemon(
      {
        app: host,
        deps,
        operator: operatorDeps,
        authorise: () => client.tokens.accessToken(),
        local: {
          root: this.root,
          ownWrites: local.ownWrites,
          filesystem: async () => ({ network: false, type: 'tmpfs' }),
        },
        watcher: { settleMs: SETTLE_MS, watchFactory: () => watch },
        extras: async (d) => {
          page = operatorActions(operatorDeps, (owner, job) =>
            d.withEntity(owner, 'status page', job),
          );
          const listeners = await startListeners(d, {
            app: host,
            metrics: new Metrics(),
            requestsPerSecond: () => 0,
            lastServiceAnswerAt: () => null,
            version: 'simulation',
            operator: page,
          });
          life.receiverUrl = (listeners.intake[0] as WebhookReceiver).url;
          return listeners;
        },
      },
      (owner, holder, job) =>
        this.harness.operatorJob(life, owner, job, holder === 'status page' ? 'page' : 'cli'),
    );
    life = {
      n,
      dead: false,
      state,
      client,
      local,
      daemon,
      deps,
      get page() {
        if (!page) throw new Error('the daemon has not started its listeners');
        return page;
      },
      cli: operatorDeps,
      watch,
      receiverUrl: '',
      config,
    };
    this.#life = life;
    await daemon.start();
  }

  /**
   * The process dies where it stands: what it persisted stays (the state file, the folder, the
   * service), nothing it had in hand goes on. Its parked work ends where it waits; what that
   * work still unwinds finds its calls refused and the state closed.
   */
  async crash(): Promise<void> {
    const life = this.life;
    life.dead = true;
    life.state.close();
    // The dead daemon starts nothing more: its scheduler would pick each failed poll again at
    // once, in a loop of promises that never lets the event loop turn.
    void life.daemon.scheduler.stop();
    this.board.crash(life.n);
    await this.board.settle();
    // What the dead daemon left listening (its webhook receiver) is closed with it.
    await life.daemon.close();
    await this.board.settle();
    this.#life = null;
  }

  /** SIGTERM: the daemon stops as it does in production; the seed may go on with a new one. */
  async sigterm(): Promise<void> {
    const life = this.life;
    await life.daemon.close();
    life.dead = true;
    this.#life = null;
  }

  /** Stops the daemon as SIGTERM does, then the simulator, and removes the folder. */
  async close(): Promise<void> {
    const life = this.#life;
    if (life && !life.dead) {
      life.dead = true;
      this.board.crash(life.n);
      await life.daemon.close().catch(() => undefined);
    }
    await this.sim.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  #config() {
    const { sim } = this;
    return configSchema.parse({
      service: {
        baseUrl: sim.apiUrl,
        webUrl: sim.webUrl,
        clientId: sim.clientId,
        clientSecret: sim.clientSecret,
        linkHosts: [sim.linkUrl],
      },
      store: { root: this.root },
      state: { path: this.stateFile },
      queue: { requestsPerSecond: 1000, concurrency: this.options.concurrency ?? 1 },
      webhook: {
        listen: '127.0.0.1:0',
        clientCode: WEBHOOK_CLIENT_CODE,
        secret: WEBHOOK_SECRET,
      },
      status: { enabled: false },
      settleSeconds: 0,
      safety: {
        ...this.options.safety,
        ...(this.options.deleteHoldSeconds === undefined
          ? {}
          : { deleteHoldSeconds: this.options.deleteHoldSeconds }),
      },
      log: { level: 'warn' },
    });
  }
}

/**
 * The daemon, with each person's decision it runs under an entity's lock (the status page's,
 * and those a command hands over, which its decision watch carries out) shown to the harness
 * inside the lock: a page decision parks there until the seed lets it go, and the harness sees
 * what the decision changed in the folder.
 */
class SimDaemon extends Daemon {
  constructor(
    parts: DaemonParts,
    private readonly decision: <T>(
      owner: OwnerRef,
      holder: string,
      job: () => Promise<T>,
    ) => Promise<T>,
  ) {
    super(parts);
  }

  override withEntity<T>(
    owner: OwnerRef,
    holder: string,
    job: (lease: EntityLease) => Promise<T> | T,
  ): Promise<T> {
    return super.withEntity(owner, holder, (lease) =>
      this.decision(owner, holder, async () => await job(lease)),
    );
  }
}

/**
 * The watcher's event source, fed by the harness: a local edit is followed by the event the OS
 * would send for it, at a moment the seed chose, never one the OS chose.
 */
export class HarnessWatch implements WatchSource {
  #listener: ((event: string, path: string) => void) | null = null;

  on(event: 'all' | 'error' | 'ready', listener: (...args: never[]) => void): this {
    if (event === 'all') this.#listener = listener as (event: string, path: string) => void;
    if (event === 'ready') queueMicrotask(() => (listener as () => void)());
    return this;
  }

  /** An event for this absolute path. */
  touch(absolutePath: string): void {
    this.#listener?.('change', absolutePath);
  }

  async close(): Promise<void> {
    this.#listener = null;
  }
}

function isDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

export const ownerKeyOf = (owner: OwnerRef) => `${owner.kind}:${owner.id}`;
