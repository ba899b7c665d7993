/**
 * The order a folder scan pass looks at entity folders: first those a stop most
 * likely left work in, so that at the start they are compared with the agreed state, and
 * synced, within seconds instead of after a pass over thousands of others (at 5,000 entities
 * the first pass takes several seconds, and the entity a SIGTERM interrupted came last in the
 * folders' order as often as not). Pure: the daemon hands it what the state says.
 */
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';

export interface LeftWork {
  /** The latest cycles, newest first: an interrupted or unfinished one names a stopped sync. */
  readonly cycles: readonly {
    readonly owner: OwnerRef | null;
    readonly result: string | null;
    readonly finishedAt: number | null;
  }[];
  /** Entities a look found local work in that their sync has not sent yet. */
  readonly waiting: readonly { readonly owner: OwnerRef }[];
}

/** `folders` with those of entities whose work a stop left first, each part in its order. */
export function scanOrder<T extends { readonly owner: OwnerRef }>(
  folders: readonly T[],
  left: LeftWork,
): T[] {
  const first = new Set([
    ...left.cycles
      .filter((c) => c.owner !== null && (c.result === 'interrupted' || c.finishedAt === null))
      .map((c) => ownerKey(c.owner!)),
    ...left.waiting.map((w) => ownerKey(w.owner)),
  ]);
  if (first.size === 0) return [...folders];
  const isFirst = (f: T) => first.has(ownerKey(f.owner));
  return [...folders.filter(isFirst), ...folders.filter((f) => !isFirst(f))];
}
