/**
 * Status types learnt from the documents themselves: each document's status names its type
 * (`typeId` and `type`, api.md). While the service's list of status types cannot be read, these
 * keep every status shown by its name in `.document.json` (engine/catalogue.ts). Pure.
 */
import type { RemoteStatus, StatusType } from './types.js';

/** The types `statuses` name that `known` lacks (by id), each once, in the order first seen. */
export function learntStatusTypes(
  known: readonly StatusType[],
  statuses: Iterable<RemoteStatus | null>,
): StatusType[] {
  const ids = new Set(known.map((t) => t.id));
  const learnt: StatusType[] = [];
  for (const status of statuses) {
    if (!status || ids.has(status.typeId) || status.type.trim() === '') continue;
    ids.add(status.typeId);
    learnt.push({ id: status.typeId, name: status.type });
  }
  return learnt;
}

/**
 * The types of `previous` that a list read again (`read`) lacks while an agreed status still
 * names them (`carried`: the type ids agreed statuses name, asked only when a type is missing,
 * as it reads every agreed document): the service takes a type out of its catalogue and keeps
 * it on the documents that carry it. Dropped, such a status would lose its name, and every
 * rewrite of its `.document.json` would show it blank while the service shows it.
 */
export function typesStillCarried(
  previous: readonly StatusType[],
  read: readonly StatusType[],
  carried: () => Iterable<string>,
): StatusType[] {
  const listed = new Set(read.map((t) => t.id));
  const missing = previous.filter((t) => !listed.has(t.id));
  if (missing.length === 0) return [];
  const inUse = new Set(carried());
  return missing.filter((t) => inUse.has(t.id));
}
