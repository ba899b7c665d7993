/**
 * `docsync trash` (issue 17): list what `.docsync/trash/` holds, the service's copies among it,
 * and put an item back where the next sync sees it; through the built CLI on the harness's
 * folder, state and simulator. Nothing is overwritten: a taken name gets ` (2)`.
 */
import { chmodSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectInSync } from '../helpers/sync-assertions.js';
import { type SyncHarness, sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

interface Listed {
  id: string;
  kind: string;
  from: string;
  originalPath: string;
  documentId: string | null;
}

async function synced() {
  const h = await start();
  const [company] = await h.owners();
  const doc = h.sim.admin.createDocument({
    owner: company!,
    name: 'Annual Return',
    documentDate: '2024-03-01',
  });
  const id = String(doc.id);
  h.sim.admin.addAttachment(id, { name: 'return.pdf', bytes: 'the return' });
  h.sim.admin.addAttachment(id, { name: 'cover.pdf', bytes: 'the cover' });
  await h.sync();
  return { h, id, folder: h.documentFolder(id)! };
}

async function listed(h: SyncHarness): Promise<Listed[]> {
  const { code, stdout } = await h.cli(['trash', 'list', '--json']);
  expect(code).toBe(0);
  return JSON.parse(stdout) as Listed[];
}

const documentsNamed = async (h: SyncHarness, name: string) =>
  (await h.remote()).documents.filter((d) => d.name === name);

describe('docsync trash', () => {
  it('a document the service deleted: listed as removed from the folder; restored, it is created in the service again', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.deleteDocument(id);
    await h.sync();
    expect(h.exists(folder)).toBe(false);

    const items = await listed(h);
    expect(items).toMatchObject([
      { kind: 'document-folder', from: 'folder', originalPath: folder, documentId: id },
    ]);
    const text = await h.cli(['trash']);
    expect(text.stdout).toContain('removed from the folder by docsync');

    const restored = await h.cli(['trash', 'restore', items[0]!.id]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('creates it in the service as a new document');
    const entity = folder.slice(0, folder.lastIndexOf('/'));
    expect(h.exists(`${entity}/2024-03-01 Annual Return/return.pdf`)).toBe(true);
    expect(h.exists(`${entity}/2024-03-01 Annual Return/.document.json`)).toBe(false);
    expect(await listed(h)).toEqual([]);

    await h.sync();
    const [again] = await documentsNamed(h, 'Annual Return');
    expect(again!.id).not.toBe(id);
    expect(again!.documentDate).toBe('2024-03-01');
    expect(again!.attachments.map((a) => a.sha256).sort()).toEqual(
      [sha256('the return'), sha256('the cover')].sort(),
    );
    await expectInSync(h);
  });

  it('a document deleted in the service from the folder: its service copy is listed as such, and restores as a new document', async () => {
    const { h, id, folder } = await synced();
    h.remove(folder);
    await h.sync();
    expect(await h.remoteDoc(id)).toBeUndefined();

    const [item, ...rest] = await listed(h);
    expect(rest).toEqual([]);
    expect(item).toMatchObject({ kind: 'document-folder', from: 'service', documentId: id });
    expect((await h.cli(['trash'])).stdout).toContain(
      "the service's copy, saved before docsync deleted it there",
    );

    expect((await h.cli(['trash', 'restore', `.docsync/trash/${item!.id}`])).code).toBe(0);
    expect([...h.tree().keys()].filter((p) => p.includes('.docsync-service-copy'))).toEqual([]);
    await h.sync();
    const again = await documentsNamed(h, 'Annual Return');
    expect(again).toHaveLength(1);
    expect(again[0]!.attachments.map((a) => a.sha256).sort()).toEqual(
      [sha256('the return'), sha256('the cover')].sort(),
    );
    await expectInSync(h);
  });

  it('a document without files the service deleted: listed though its folder held only .document.json; restored, it waits for a file', async () => {
    const h = await start();
    const [company] = await h.owners();
    const doc = h.sim.admin.createDocument({
      owner: company!,
      name: 'Board Minutes',
      documentDate: '2024-04-02',
    });
    const id = String(doc.id);
    await h.sync();
    const folder = h.documentFolder(id)!;
    expect(readdirSync(path.join(h.root, folder))).toEqual(['.document.json']);
    h.sim.admin.deleteDocument(id);
    await h.sync();
    expect(h.exists(folder)).toBe(false);

    const [item, ...rest] = await listed(h);
    expect(rest).toEqual([]);
    expect(item).toMatchObject({
      kind: 'document-folder',
      from: 'folder',
      originalPath: folder,
      documentId: id,
    });
    expect((await h.cli(['trash'])).stdout).toContain(
      'document folder, no files (only its .document.json)',
    );

    const restored = await h.cli(['trash', 'restore', item!.id]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('it holds no file: put one in it');
    const entity = folder.slice(0, folder.lastIndexOf('/'));
    const back = `${entity}/2024-04-02 Board Minutes`;
    expect(readdirSync(path.join(h.root, back))).toEqual([]);
    expect(await listed(h)).toEqual([]);
    h.write(`${back}/minutes.pdf`, 'the minutes');
    await h.sync();
    const [again] = await documentsNamed(h, 'Board Minutes');
    expect(again!.id).not.toBe(id);
    expect(again!.attachments.map((a) => a.sha256)).toEqual([sha256('the minutes')]);
    await expectInSync(h);
  });

  it('an attachment the service removed: the file goes back into its folder and up again', async () => {
    const { h, id, folder } = await synced();
    const cover = (await h.remoteDoc(id))!.attachments.find((a) => a.name === 'cover.pdf')!;
    h.sim.admin.deleteAttachment(id, cover.id);
    await h.sync();
    expect(h.exists(`${folder}/cover.pdf`)).toBe(false);

    const [item] = await listed(h);
    expect(item).toMatchObject({
      kind: 'file',
      from: 'folder',
      originalPath: `${folder}/cover.pdf`,
    });
    const restored = await h.cli(['trash', 'restore', item!.id]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain(`to ${folder}/cover.pdf`);

    await h.sync();
    const names = (await h.remoteDoc(id))!.attachments.map((a) => [a.name, a.sha256]);
    expect(names).toContainEqual(['cover.pdf', sha256('the cover')]);
    await expectInSync(h);
  });

  it("a file deleted in the folder: the service's copy is listed; restored beside a new file of its name, it never overwrites", async () => {
    const { h, id, folder } = await synced();
    h.remove(`${folder}/cover.pdf`);
    await h.sync();
    expect((await h.remoteDoc(id))!.attachments.map((a) => a.name)).toEqual(['return.pdf']);
    h.write(`${folder}/cover.pdf`, 'a new cover');

    const [item] = await listed(h);
    expect(item).toMatchObject({ kind: 'file', from: 'service' });
    expect((await h.cli(['trash', 'restore', item!.id])).code).toBe(0);

    expect(h.read(`${folder}/cover.pdf`).toString()).toBe('a new cover');
    expect(h.read(`${folder}/cover (2).pdf`).toString()).toBe('the cover');
    await h.sync();
    const hashes = (await h.remoteDoc(id))!.attachments.map((a) => a.sha256);
    expect(hashes).toContain(sha256('the cover'));
    expect(hashes).toContain(sha256('a new cover'));
    await expectInSync(h);
  });

  it('a document folder docsync still syncs goes back where it was, and nothing is deleted', async () => {
    const { h, id, folder } = await synced();
    // A conflict's keep-mine (or anything else docsync trashed) undone before the next sync.
    await h.deps.local.trash(folder, await h.deps.local.lookAt(folder));
    const [item] = await listed(h);
    expect(item).toMatchObject({ kind: 'document-folder', from: 'folder', documentId: id });

    const restored = await h.cli(['trash', 'restore', item!.id]);

    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('finds the document in its folder again');
    expect(h.documentFolder(id)).toBe(folder);
    h.resetCounters();
    await h.sync();
    expect(h.writesToService()).toEqual({});
    expect(await h.remoteDoc(id)).toBeDefined();
    await expectInSync(h);
  });

  it('an id that names nothing in the trash is refused with a sentence', async () => {
    const { h } = await synced();
    const { code, stderr } = await h.cli(['trash', 'restore', '2024-01-01/Companies/nothing']);
    expect(code).toBe(1);
    expect(stderr).toContain('Nothing in .docsync/trash/ is named');
    expect((await h.cli(['trash'])).stdout).toContain('The trash is empty.');
  });

  it('a restore that cannot move the folder out of the trash changes nothing: the item stays whole, and restores later', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.deleteDocument(id);
    await h.sync();
    const [item] = await listed(h);
    expect(item).toMatchObject({ kind: 'document-folder', documentId: id });
    // The folder holding the item in the trash may not be written: the item cannot leave it.
    // Everything else may be, by the user the command runs as (root passes every check).
    openTree(path.dirname(h.root));
    const holder = path.join(h.root, '.docsync/trash', path.posix.dirname(item!.id));
    chmodSync(holder, 0o555);
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

    const failed = await h.cli(['trash', 'restore', item!.id], {}, user ? { user } : {});

    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^docsync: \.docsync\/trash\/.+ could not be moved to .+ \(EACCES\); nothing was restored and the item is still in the trash/,
    );
    expect(await listed(h)).toEqual([item]);
    chmodSync(holder, 0o755);
    const restored = await h.cli(['trash', 'restore', item!.id]);
    expect(restored.code).toBe(0);
    const entity = folder.slice(0, folder.lastIndexOf('/'));
    expect(h.exists(`${entity}/2024-03-01 Annual Return/.document.json`)).toBe(false);
    expect(h.exists(`${entity}/2024-03-01 Annual Return/return.pdf`)).toBe(true);
  });
});

/** Lets any user read and write everything under `dir`. */
function openTree(dir: string): void {
  chmodSync(dir, 0o777);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) openTree(child);
    else if (entry.isFile()) chmodSync(child, 0o666);
  }
}
