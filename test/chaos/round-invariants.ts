/**
 * What must hold after every round's sync, faults and kills included (issue 15, "never lose a
 * record"), judged from the service's state before and after the sync; no user acts meanwhile,
 * so whatever left the service in between, docsync removed:
 * 1. no service document is gone that no one deleted in the service and whose folder no user
 *    removed from the store: a held entity's documents and moved folders' documents stay;
 * 2. every attachment docsync removed from the service (a deleted document's, a deleted file's,
 *    the old content of a replace) is in `.docsync/trash/` first: the service has no recycle bin;
 * 3. the old content of a replaced file never comes back into the folder under another name
 *    (`name (2).ext`), which is what a replace left half done in the service looks like.
 */
import path from 'node:path';
import { expect } from 'vitest';
import type { SyncHarness } from '../helpers/sync-harness.js';
import type { ChaosLedger } from './chaos-ledger.js';

export interface ServiceBefore {
  /** Documents the service must still hold after the sync. */
  readonly mustStay: ReadonlySet<string>;
  /** Every attachment before the sync: `documentId/attachmentId` → what and its sha256. */
  readonly attachments: ReadonlyMap<string, { readonly what: string; readonly sha: string }>;
}

/** Taken after the round's edits, just before its sync. */
export async function serviceBefore(h: SyncHarness, ledger: ChaosLedger): Promise<ServiceBefore> {
  // A removed folder that is back (modify beats delete restored it) counts as present again.
  const inStore = new Set([...h.tree().keys()].filter(isMeta).map((rel) => metaId(h, rel)));
  for (const id of ledger.removedFromStore) if (inStore.has(id)) ledger.removedFromStore.delete(id);
  const { documents } = await h.remote();
  const attachments = new Map<string, { what: string; sha: string }>();
  for (const doc of documents)
    for (const a of doc.attachments)
      attachments.set(`${doc.id}/${a.id}`, { what: `${doc.id}/${a.name}`, sha: a.sha256 });
  const mustStay = documents.map((d) => d.id).filter((id) => !ledger.removedFromStore.has(id));
  return { mustStay: new Set(mustStay), attachments };
}

export async function expectRoundInvariants(
  h: SyncHarness,
  ledger: ChaosLedger,
  before: ServiceBefore,
  when: string,
): Promise<void> {
  const { documents } = await h.remote();
  const ids = new Set(documents.map((d) => d.id));
  const deleted = [...before.mustStay].filter((id) => !ids.has(id));
  expect(deleted, `${when}: service documents deleted that no user deleted`).toEqual([]);

  const now = new Set(documents.flatMap((d) => d.attachments.map((a) => `${d.id}/${a.id}`)));
  const trash = new Set(h.trash().values());
  const uncopied = [...before.attachments]
    .filter(([key, { sha }]) => !now.has(key) && !trash.has(sha))
    .map(([, { what, sha }]) => `${what} (${sha.slice(0, 12)})`);
  expect(uncopied, `${when}: removed from the service without a copy in the trash`).toEqual([]);

  expect(oldContentCopies(h, ledger), `${when}: replaced contents back in the folder`).toEqual([]);
}

/** Files holding the old content of a replaced file under another name than the file's own. */
export function oldContentCopies(h: SyncHarness, ledger: ChaosLedger): string[] {
  const old = new Map(ledger.replaces.map((r) => [r.oldSha, r.file]));
  return [...h.tree()]
    .filter(([rel, sha]) => old.has(sha) && path.posix.basename(rel) !== old.get(sha))
    .map(([rel]) => rel);
}

const isMeta = (rel: string) => rel.endsWith('/.document.json');
const metaId = (h: SyncHarness, rel: string) => h.meta(rel.slice(0, -'/.document.json'.length)).id;
