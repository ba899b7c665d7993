/**
 * Runs cycles one at a time and merges what asks for one meanwhile: the cron schedule (every
 * entity), the full reconcile schedule, the watcher (one entity) and webhooks (one entity, or a
 * deletion). While a cycle runs, requests pile up into the next one, so a burst of watcher
 * events costs one cycle, and no entity is ever in two cycles at once.
 */
import type { OwnerRef } from '../domain/types.js';
import type { CycleOptions } from '../engine/run-cycle.js';
import { ownerKey } from '../engine/run-cycle.js';
import type { CycleTrigger } from '../state/cycle-repo.js';

export interface CycleRequest {
  readonly trigger: CycleTrigger;
  /** Absent: every entity. */
  readonly owner?: OwnerRef;
  readonly fullReconcile?: boolean;
  /** A document the service said it deleted (webhook `deleteDocument`). */
  readonly deletedId?: string;
}

export class CycleScheduler {
  #pending: {
    trigger: CycleTrigger;
    all: boolean;
    full: boolean;
    owners: Map<string, OwnerRef>;
    deleted: Map<string, Set<string>>;
  } | null = null;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(private readonly run: (options: CycleOptions) => Promise<void>) {}

  request(request: CycleRequest): void {
    if (this.#stopped) return;
    const pending = (this.#pending ??= {
      trigger: request.trigger,
      all: false,
      full: false,
      owners: new Map(),
      deleted: new Map(),
    });
    pending.full ||= request.fullReconcile ?? false;
    if (request.owner) {
      const key = ownerKey(request.owner);
      pending.owners.set(key, request.owner);
      if (request.deletedId) {
        const set = pending.deleted.get(key) ?? new Set<string>();
        pending.deleted.set(key, set.add(request.deletedId));
      }
    } else {
      pending.all = true;
      pending.trigger = request.trigger;
    }
    this.#kick();
  }

  /** The cycle in flight, if any (for shutdown: finish it, start no other). */
  get running(): Promise<void> | null {
    return this.#running;
  }

  stop(): Promise<void> {
    this.#stopped = true;
    this.#pending = null;
    return this.#running ?? Promise.resolve();
  }

  #kick(): void {
    if (this.#running || !this.#pending || this.#stopped) return;
    const next = this.#pending;
    this.#pending = null;
    const options: CycleOptions = {
      trigger: next.trigger,
      fullReconcile: next.full,
      ...(next.all ? {} : { owners: [...next.owners.values()] }),
      ...(next.deleted.size > 0 ? { deletedIds: next.deleted } : {}),
    };
    this.#running = this.run(options).finally(() => {
      this.#running = null;
      this.#kick();
    });
  }
}
