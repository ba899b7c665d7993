/**
 * Runs cycles one at a time and merges what asks for one meanwhile: the cron schedule (every
 * entity), the full reconcile schedule, the watcher (one entity) and webhooks (one entity, or a
 * deletion). While a cycle runs, requests pile up into the next one, so a burst of watcher
 * events costs one cycle, and no entity is ever in two cycles at once.
 */

import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { CycleOptions } from '../engine/run-cycle.js';
import type { CycleTrigger } from '../state/cycle-repo.js';

export interface CycleRequest {
  readonly trigger: CycleTrigger;
  /** Absent: every entity. */
  readonly owner?: OwnerRef;
  readonly fullReconcile?: boolean;
  /** A document the service said it deleted (webhook `deleteDocument`). */
  readonly deletedId?: string;
  /** Read the entity list again first (a webhook named an entity docsync does not know). */
  readonly refreshEntities?: boolean;
}

export class CycleScheduler {
  #waiters: (() => void)[] = [];
  #pending: {
    trigger: CycleTrigger;
    all: boolean;
    full: boolean;
    owners: Map<string, OwnerRef>;
    deleted: Map<string, Set<string>>;
    refresh: boolean;
  } | null = null;
  #running: Promise<void> | null = null;
  #stopped = false;

  /**
   * `run` should settle every cycle itself; `onError` hears what still escapes it (its own
   * bookkeeping failing, e.g. a state write), so no cycle ends as an unhandled rejection.
   */
  constructor(
    private readonly run: (options: CycleOptions) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Resolves when the cycle that includes this request has finished (or the daemon stopped). */
  request(request: CycleRequest): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#pending ??= {
      trigger: request.trigger,
      all: false,
      full: false,
      owners: new Map(),
      deleted: new Map(),
      refresh: false,
    };
    const pending = this.#pending;
    pending.full ||= request.fullReconcile ?? false;
    if (request.owner) {
      const key = ownerKey(request.owner);
      pending.owners.set(key, request.owner);
      if (request.deletedId) {
        const set = pending.deleted.get(key) ?? new Set<string>();
        set.add(request.deletedId);
        pending.deleted.set(key, set);
      }
    } else {
      pending.all = true;
      pending.trigger = request.trigger;
    }
    pending.refresh ||= request.refreshEntities ?? false;
    this.#kick();
    return done;
  }

  /** The cycle in flight, if any (for shutdown: finish it, start no other). */
  get running(): Promise<void> | null {
    return this.#running;
  }

  stop(): Promise<void> {
    this.#stopped = true;
    this.#pending = null;
    for (const resolve of this.#waiters.splice(0)) resolve();
    return this.#running ?? Promise.resolve();
  }

  #kick(): void {
    if (this.#running || !this.#pending || this.#stopped) return;
    const next = this.#pending;
    const waiters = this.#waiters.splice(0);
    this.#pending = null;
    const options: CycleOptions = {
      trigger: next.trigger,
      fullReconcile: next.full,
      ...(next.all ? {} : { owners: [...next.owners.values()] }),
      ...(next.deleted.size > 0 ? { deletedIds: next.deleted } : {}),
      ...(next.refresh ? { refreshEntities: true } : {}),
    };
    this.#running = this.run(options)
      .catch(this.onError)
      .finally(() => {
        for (const resolve of waiters) resolve();
        this.#running = null;
        this.#kick();
      });
  }
}
