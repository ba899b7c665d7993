/**
 * What must hold once the chaos is over and the service is healthy again (issue 8):
 * 1. both sides hold the same documents, statuses and attachment bytes;
 * 2. no document was duplicated: a document a user made (a folder, or one in the service) is
 *    in the service at most once, and exactly once unless a user deleted it; no two folders for
 *    one document id;
 * 3. every byte any user wrote is in the service, the folder (conflict and `(local edit)` copies
 *    included) or `.docsync/trash/`, unless a user deleted it on the side it lived on;
 * 4. a content replace killed between its two steps was finished: no document holds both the
 *    old and the new content, and the old is not in the folder under another name;
 * 5. a further cycle is quiet.
 * Each round's sync has its own checks (round-invariants.ts).
 */
import { expect } from 'vitest';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import type { SyncHarness } from '../helpers/sync-harness.js';
import type { ChaosLedger } from './chaos-ledger.js';
import { oldContentCopies } from './round-invariants.js';

export async function expectChaosInvariants(h: SyncHarness, ledger: ChaosLedger): Promise<void> {
  await expectInSync(h);

  const dump = await h.remote();
  const byName = new Map<string, string[]>();
  for (const doc of dump.documents) byName.set(doc.name, [...(byName.get(doc.name) ?? []), doc.id]);
  for (const name of ledger.madeNames) {
    const ids = byName.get(name) ?? [];
    const expected = ledger.deletedNames.has(name) ? ids.length <= 1 : ids.length === 1;
    expect(expected, `documents named "${name}": ${JSON.stringify(ids)}`).toBe(true);
  }

  const kept = new Set([
    ...dump.documents.flatMap((d) => d.attachments.map((a) => a.sha256)),
    ...h.tree().values(),
    ...h.trash().values(),
  ]);
  const lost = [...ledger.written]
    .filter(([sha]) => !kept.has(sha) && !ledger.userDeleted.has(sha))
    .map(([sha, what]) => `${what} (${sha.slice(0, 12)})`);
  expect(lost, 'bytes a user wrote that are nowhere').toEqual([]);

  const bothVersions = ledger.replaces
    .filter((r) => dump.documents.some((d) => hasBoth(d.attachments, r.oldSha, r.newSha)))
    .map((r) => `${r.documentId}/${r.file}`);
  expect(bothVersions, 'replaced files with both versions in the service').toEqual([]);
  expect(oldContentCopies(h, ledger), 'replaced contents back in the folder').toEqual([]);

  await expectQuiet(h);
}

function hasBoth(attachments: readonly { sha256: string }[], a: string, b: string): boolean {
  return attachments.some((x) => x.sha256 === a) && attachments.some((x) => x.sha256 === b);
}
