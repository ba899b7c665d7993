/**
 * After pushes, the service has moved the documents' `lastUpdatedTimestamp`, and none of its
 * push answers says to what (a create answers with whole seconds, uploads and statuses not at
 * all). Left alone, the next cycle would see every pushed document as "changed", read its
 * details and rewrite its `.document.json` (row 27): a cycle after a sync that is not quiet.
 * So the cycle that pushed lists what changed since it started (the list carries the
 * microseconds the next listing compares with) and reads those documents' details: when they
 * show exactly the agreed base, only the timestamp is new and the base takes it now. A document
 * that differs in anything else (someone changed it meanwhile) is left for the next plan, which
 * is what keeps this from ever hiding a change. The bases learnt are returned, for the caller
 * to commit with the entity's cursor.
 */
import { applyActionResult } from '../domain/apply-action-result.js';
import { LocalChangedError } from '../domain/errors.js';
import { documentChanges } from '../domain/remote-changes.js';
import { formatUpdatedAfter } from '../domain/timestamps.js';
import type { BaseDocument, OwnerRef, RemoteDocument } from '../domain/types.js';
import type { EngineDeps } from './engine-deps.js';

export async function learnPushedTimestamps(
  deps: EngineDeps,
  owner: OwnerRef,
  pushed: ReadonlySet<string>,
  /** Local epoch ms before the first push of this entity. */
  since: number,
  writeMeta: (base: BaseDocument, doc: RemoteDocument) => Promise<void>,
): Promise<BaseDocument[]> {
  const bases: BaseDocument[] = [];
  if (pushed.size === 0) return bases;
  const serviceSinceMs = since + deps.clockOffsetMs() - deps.settings.overlapSeconds * 1000;
  const updatedAfter = formatUpdatedAfter(serviceSinceMs * 1000);
  for await (const entry of deps.remote.documentVersions(owner, { updatedAfter })) {
    // A list that gives no change time cannot show one to learn: the next plan reads the details.
    if ('malformed' in entry || !pushed.has(entry.id) || entry.lastUpdatedTimestamp === null)
      continue;
    const base = deps.state.base.get(entry.id);
    if (!base || base.lastUpdatedTimestamp === entry.lastUpdatedTimestamp) continue;
    const doc = await deps.remote.document(owner, entry.id, {
      listedAt: entry.lastUpdatedTimestamp,
    });
    const changes = documentChanges(base, doc).filter((c) => c.kind !== 'remote-touched');
    if (changes.length > 0) continue;
    // Row 27, now rather than in the next cycle's plan.
    const learnt = {
      kind: 'update-base',
      row: 27,
      owner,
      documentId: base.id,
      documentName: base.name,
      patch: { lastUpdatedTimestamp: entry.lastUpdatedTimestamp },
    } as const;
    const next = applyActionResult(base, learnt, { kind: 'done' })!;
    // The folder first: a crash before the commit leaves the old timestamp, i.e. one more
    // row 27. A person's edit of `.document.json` meanwhile is left for the next plan.
    try {
      await writeMeta(next, doc);
    } catch (error) {
      if (error instanceof LocalChangedError) continue;
      throw error;
    }
    bases.push(next);
  }
  return bases;
}
