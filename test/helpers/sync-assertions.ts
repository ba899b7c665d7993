/**
 * "Both sides hold the same documents": every service document has exactly one folder whose
 * `.document.json` names it, with the service's status and one file per attachment holding the
 * attachment's bytes; every document folder names a service document.
 */
import { expect } from 'vitest';
import { keptEditOf } from '../../src/domain/local-folder-names.js';
import { folderFiles, type SyncHarness } from './sync-harness.js';

export async function expectInSync(h: SyncHarness): Promise<void> {
  const dump = await h.remote();
  const tree = h.tree();
  const folders = [...tree.keys()]
    .filter((rel) => rel.endsWith('/.document.json'))
    .map((rel) => rel.slice(0, -'/.document.json'.length));
  const byId = new Map<string, string[]>();
  for (const folder of folders) {
    const id = h.meta(folder).id;
    byId.set(id, [...(byId.get(id) ?? []), folder]);
  }
  const remoteIds = dump.documents.map((d) => d.id).sort();
  expect([...byId.keys()].sort(), 'document folders vs service documents').toEqual(remoteIds);
  for (const doc of dump.documents) {
    const [folder, ...extra] = byId.get(doc.id) ?? [];
    expect(extra, `second folder for ${doc.id}`).toEqual([]);
    const meta = h.meta(folder!);
    expect({ status: meta.status, statusDate: meta.statusDate }, `status of ${doc.id}`).toEqual({
      status: doc.status?.type ?? null,
      statusDate: doc.status?.effectiveDate ?? null,
    });
    // A kept "(local edit)" of a system attachment is the user's alone; it is never pushed. Only
    // while the document has that form as a system attachment: made again from its folder (row
    // 12), the form is an ordinary attachment, and the copy an ordinary file, uploaded.
    const forms = meta.attachments.filter((a) => a.kind === 'system').map((a) => a.file);
    const local = [...folderFiles(tree, folder!)]
      .filter(([name]) => keptEditOf(name, forms) === null)
      .map(([, sha]) => sha)
      .sort();
    const remote = doc.attachments.map((a) => a.sha256).sort();
    expect(local, `attachment bytes of ${doc.id} in ${folder}`).toEqual(remote);
  }
}

/**
 * A second cycle that finds nothing: no request changes the service, and no file of the folder
 * changes (content or mtime).
 */
export async function expectQuiet(h: SyncHarness): Promise<void> {
  const before = h.mtimes();
  const hashes = h.tree();
  h.resetCounters();
  const report = await h.sync();
  expect(report.result).toBe('ok');
  expect(report.actions, 'actions of a quiet cycle').toBe(0);
  expect(h.writesToService(), 'writes to the service').toEqual({});
  expect(h.tree()).toEqual(hashes);
  expect(h.mtimes()).toEqual(before);
}
