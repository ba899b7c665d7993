/**
 * `docsync run`: the long-running daemon. It owns the lifecycle (style guide §8): start takes
 * the single-instance lock, does the housekeeping that is due, catches up with a full reconcile,
 * then listens — cron, the folder watcher, the webhook receiver, the status page. `close()` stops
 * intake, lets the cycle in flight finish its requests, then closes the database; a second call
 * waits for the first.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { OwnerRef } from '../domain/types.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import { type CycleOptions, runCycle } from '../engine/run-cycle.js';
import type { FsLocalStore } from '../local/fs-local-store.js';
import { type EntityTouch, FolderWatcher } from '../local/watcher.js';
import type { App } from '../main.js';
import { AuthRequiredError } from '../remote/api-error.js';
import { InstanceLock } from '../state/instance-lock.js';
import { type CycleRequest, CycleScheduler } from './cycle-scheduler.js';
import { HOUSEKEEPING_EVERY_MS, housekeepIfDue } from './housekeeping.js';

export interface Closable {
  close(): Promise<void> | void;
}

export interface DaemonParts {
  readonly app: App;
  readonly deps: EngineDeps;
  readonly local: FsLocalStore;
  /** Extra listeners started with the daemon (webhook receiver, status page), closed first. */
  readonly extras?: (daemon: Daemon) => Promise<Closable[]>;
  /** Told of every finished cycle (metrics). */
  readonly onCycle?: (result: string, railsTripped: number) => void;
  /** Overrides for tests: watcher timing. */
  readonly watcher?: { settleMs?: number; pollIntervalMs?: number };
}

export class Daemon {
  readonly scheduler: CycleScheduler;
  #lock: InstanceLock | undefined;
  #tasks: ScheduledTask[] = [];
  #watcher: FolderWatcher | undefined;
  #extras: Closable[] = [];
  #housekeepingTimer: NodeJS.Timeout | undefined;
  #housekeeping: Promise<void> | null = null;
  #closing: Promise<void> | undefined;
  #fatal: Error | undefined;
  readonly #shutdown = new AbortController();
  readonly #done: Promise<void>;
  #resolveDone!: () => void;
  lastCycle: { finishedAt: number; ok: boolean; error?: string } | undefined;

  constructor(private readonly parts: DaemonParts) {
    this.scheduler = new CycleScheduler((options) => this.#cycle(options));
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

  async start(): Promise<void> {
    const { app, local } = this.parts;
    const { config, state, logger } = app;
    this.#lock = InstanceLock.acquire(state.db);
    this.#lock.startHeartbeat((error) => this.#stopWith(error));
    state.cycles.markInterrupted(Date.now());
    // Before the first cycle: a disk filled by downloads a crash left behind gets its space back
    // before the catch-up needs it.
    await housekeepIfDue(this.parts.deps);
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
      log: logger,
      onTouch: (touch) => this.#touched(touch),
    });
    await this.#watcher.start();
    this.#extras = (await this.parts.extras?.(this)) ?? [];
    // Catch up with whatever happened while docsync was not running, deletions included.
    this.scheduler.request({ trigger: 'cron', fullReconcile: true });
    logger.info({ root: local.root, cron: config.schedule.cron }, 'docsync daemon started');
  }

  /** A targeted cycle (webhook or watcher); resolves when the cycle that includes it is over. */
  request(request: CycleRequest): Promise<void> {
    return this.scheduler.request(request);
  }

  /** When the next scheduled cycle is due. */
  nextCycleAt(): Date | null {
    return this.#tasks[0]?.getNextRun() ?? null;
  }

  /** The grant was refused: nothing works until `docsync auth login`. */
  get authLost(): boolean {
    return this.#fatal instanceof AuthRequiredError;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      const { app } = this.parts;
      for (const task of this.#tasks) task.stop();
      clearTimeout(this.#housekeepingTimer);
      this.#shutdown.abort();
      await Promise.allSettled(this.#extras.map((extra) => extra.close()));
      await this.#watcher?.close();
      await this.scheduler.stop();
      await this.#housekeeping;
      this.#lock?.release();
      app.logger.info('docsync daemon stopped');
      app.close();
      this.#resolveDone();
    })();
    return this.#closing;
  }

  /**
   * Daily, beside the cycles rather than through the scheduler: it touches nothing a cycle uses
   * (trash days past retention, temp files untouched for a day, finished rows nothing open
   * depends on), and each prune is one synchronous statement between a cycle's steps, so it never
   * waits for a long cycle nor delays one. The timer is unref'd so it never holds the process
   * open; close() clears it and waits for a run in progress before closing the database.
   */
  #scheduleHousekeeping(): void {
    if (this.#closing) return;
    const { deps } = this.parts;
    const now = deps.now();
    const last = deps.state.settings.housekeepingAt() ?? now;
    const delay = Math.min(Math.max(0, last + HOUSEKEEPING_EVERY_MS - now), HOUSEKEEPING_EVERY_MS);
    this.#housekeepingTimer = setTimeout(() => {
      this.#housekeeping = housekeepIfDue(deps)
        .then(() => this.#scheduleHousekeeping())
        .catch((error: unknown) =>
          this.parts.app.logger.error({ err: error }, 'housekeeping failed'),
        )
        .finally(() => {
          this.#housekeeping = null;
        });
    }, delay);
    this.#housekeepingTimer.unref();
  }

  #touched(touch: EntityTouch): void {
    const owner: OwnerRef | null = touch.owner ?? this.#ownerOfFolder(touch.entityFolder);
    this.scheduler.request(owner ? { trigger: 'watcher', owner } : { trigger: 'watcher' });
  }

  #ownerOfFolder(folder: string): OwnerRef | null {
    const record = this.parts.app.state.entities.findByFolder(folder);
    return record ? { kind: record.entity.kind, id: record.entity.id } : null;
  }

  async #cycle(options: CycleOptions): Promise<void> {
    const { logger } = this.parts.app;
    try {
      const report = await runCycle(this.parts.deps, { ...options, signal: this.#shutdown.signal });
      this.lastCycle = { finishedAt: Date.now(), ok: report.result === 'ok' };
      this.parts.onCycle?.(report.result, report.tripped.length);
    } catch (error) {
      this.lastCycle = { finishedAt: Date.now(), ok: false, error: (error as Error).message };
      this.parts.onCycle?.('error', 0);
      if (error instanceof AuthRequiredError) {
        // Nothing will work until a person authorises docsync again: stop, and say how.
        logger.fatal(error.message);
        this.#stopWith(error);
        return;
      }
      logger.error({ err: error }, 'cycle failed; the next one will retry');
    }
  }

  #stopWith(error: Error): void {
    this.#fatal ??= error;
    void this.close();
  }
}
