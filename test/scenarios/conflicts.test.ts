/**
 * Both sides changed the same thing (daemon.md "Sync rules"): the newer change wins, the losing
 * version is kept under a conflict name, identical changes are no conflict, and modify beats
 * delete. "Newer" is set up with file mtimes an hour either side of the service's change.
 */
import { describe, expect, it } from 'vitest';
import { runCycle } from '../../src/engine/run-cycle.js';
import type { RemoteStore } from '../../src/remote/remote-store.js';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { type SyncHarness, sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const HOUR = 3_600_000;
const today = () => new Date().toISOString().slice(0, 10);
/** `<name> (conflict yyyy-mm-dd hhmm).<ext>` of daemon.md, any stamp. */
const conflictCopy = (stem: string, ext: string) =>
  new RegExp(`^${stem} \\(conflict \\d{4}-\\d{2}-\\d{2} \\d{4}\\)\\.${ext}$`);

async function settled(h: SyncHarness) {
  await expectInSync(h);
  await expectQuiet(h);
}

async function synced() {
  const h = await start();
  const [company] = await h.owners();
  const doc = h.sim.admin.createDocument({ owner: company!, name: 'Solvency Resolution' });
  const id = String(doc.id);
  h.sim.admin.addAttachment(id, { name: 'resolution.pdf', bytes: 'resolution v1' });
  await h.sync();
  const folder = h.documentFolder(id)!;
  h.resetCounters();
  return { h, id, folder };
}

/**
 * The service's port, where the first look at document `id`'s details is accompanied by a
 * service user adding an attachment to it, `before` the answer is read or `after` (a late answer).
 */
function withDetails(h: SyncHarness, id: string, when: 'before' | 'after'): RemoteStore {
  const inner = h.deps.remote;
  let first = true;
  const document: RemoteStore['document'] = async (owner, documentId) => {
    const edit = documentId === id && first;
    if (edit) first = false;
    const add = () => h.sim.admin.addAttachment(id, { name: 'appendix.pdf', bytes: 'appendix' });
    if (edit && when === 'before') add();
    const answer = await inner.document(owner, documentId);
    if (edit && when === 'after') add();
    return answer;
  };
  return new Proxy(inner, {
    get: (target, prop) => {
      if (prop === 'document') return document;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const filesIn = (h: SyncHarness, folder: string) =>
  [...h.tree().keys()]
    .filter((rel) => rel.startsWith(`${folder}/`))
    .map((rel) => rel.slice(folder.length + 1))
    .filter((name) => name !== '.document.json')
    .sort();

describe('conflicts', () => {
  it('status changed on both sides: the newer local edit wins and is pushed', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.assignStatus(id, { typeId: 21 });
    h.editMeta(folder, (m) => ({ ...m, status: 'cancelled' }), Date.now() + HOUR);

    await h.sync();

    expect((await h.remoteDoc(id))!.status).toMatchObject({ type: 'CANCELLED' });
    expect(h.meta(folder).status).toBe('CANCELLED');
    await settled(h);
  });

  it('status changed on both sides: the newer service change wins and reaches the folder', async () => {
    const { h, id, folder } = await synced();
    h.editMeta(folder, (m) => ({ ...m, status: 'cancelled' }), Date.now() - HOUR);
    h.sim.admin.assignStatus(id, { typeId: 21 });

    await h.sync();

    expect(h.writesToService()).toEqual({});
    expect((await h.remoteDoc(id))!.status).toMatchObject({ type: 'LODGED' });
    expect(h.meta(folder).status).toBe('LODGED');
    await settled(h);
  });

  it('the same status chosen on both sides is no conflict and pushes nothing', async () => {
    const { h, id, folder } = await synced();
    h.editMeta(folder, (m) => ({ ...m, status: 'Lodged', statusDate: today() }));
    h.sim.admin.assignStatus(id, { typeId: 21, effectiveDate: today() });

    await h.sync();

    expect(h.writesToService()).toEqual({});
    expect(h.meta(folder)).toMatchObject({ status: 'LODGED', statusDate: today() });
    await settled(h);
  });

  it('a file added on both sides under one name, service newer: the local one becomes the conflict copy and is uploaded next cycle', async () => {
    const { h, id, folder } = await synced();
    h.write(`${folder}/minutes.pdf`, 'our minutes', Date.now() - HOUR);
    h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'their minutes' });

    await h.sync();

    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('their minutes');
    const copy = filesIn(h, folder).find((name) => conflictCopy('minutes', 'pdf').test(name));
    expect(copy).toBeDefined();
    expect(h.read(`${folder}/${copy}`).toString()).toBe('our minutes');
    expect(h.state.conflicts.list().length).toBeGreaterThan(0);

    await h.sync();
    const names = (await h.remoteDoc(id))!.attachments.map((a) => [a.name, a.sha256]);
    expect(names).toContainEqual([copy, sha256('our minutes')]);
    await settled(h);
  });

  it('a file added on both sides under one name, local newer: the service one is downloaded to the conflict name', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'their minutes' });
    h.write(`${folder}/minutes.pdf`, 'our minutes', Date.now() + HOUR);

    await h.sync();

    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('our minutes');
    const copy = filesIn(h, folder).find((name) => conflictCopy('minutes', 'pdf').test(name));
    expect(h.read(`${folder}/${copy}`).toString()).toBe('their minutes');
    const hashes = (await h.remoteDoc(id))!.attachments.map((a) => a.sha256);
    expect(hashes).toContain(sha256('our minutes'));
    expect(hashes).toContain(sha256('their minutes'));
    await settled(h);
  });

  it.each([
    ['newer', 1],
    ['older (the service changed since)', -1],
  ])(
    "a conflict copy an earlier try placed and did not record (a crash before its commit) is taken as the service's file, the folder's %s: not placed twice, not uploaded again, the conflict recorded",
    async (_, sign) => {
      const { h, id, folder } = await synced();
      h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'their minutes' });
      h.write(`${folder}/minutes.pdf`, 'our minutes', Date.now() + sign * HOUR);
      // What the try that was cut left: the service's version under a conflict name, no record.
      const left = 'minutes (conflict 2030-01-07 0900).pdf';
      h.write(`${folder}/${left}`, 'their minutes', Date.now() + sign * HOUR);

      await h.sync();
      await h.sync();

      const theirs = [...h.tree()].filter(([, sha]) => sha === sha256('their minutes'));
      expect(theirs.map(([rel]) => rel)).toEqual([`${folder}/${left}`]);
      const hashes = (await h.remoteDoc(id))!.attachments.map((a) => a.sha256);
      expect(hashes.filter((sha) => sha === sha256('their minutes'))).toHaveLength(1);
      expect(hashes.filter((sha) => sha === sha256('our minutes'))).toHaveLength(1);
      expect([...h.tree().values()]).toContain(sha256('our minutes'));
      expect(h.state.conflicts.list()).toHaveLength(1);
      await settled(h);
    },
  );

  it("row 42's copy an earlier try made and did not record (the flush after the rename failed) has its conflict recorded by the next sync: the service's file under the name, the copy uploaded once", async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'their minutes' });
    // What the try that was cut left: the folder's version under its conflict name, no record.
    const left = 'minutes (conflict 2030-01-07 0900).pdf';
    h.write(`${folder}/${left}`, 'our minutes', Date.now() - HOUR);

    await h.sync();
    await h.sync();

    expect(filesIn(h, folder)).toEqual([left, 'minutes.pdf', 'resolution.pdf']);
    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('their minutes');
    const names = (await h.remoteDoc(id))!.attachments.map((a) => [a.name, a.sha256]);
    expect(names).toContainEqual([left, sha256('our minutes')]);
    expect(names.filter(([, sha]) => sha === sha256('our minutes'))).toHaveLength(1);
    const conflicts = h.state.conflicts.list();
    expect(conflicts.map((c) => [c.copyPath, c.winner, c.subject])).toEqual([
      [`${folder}/${left}`, 'remote', { kind: 'file', file: 'minutes.pdf' }],
    ]);
    await settled(h);
  });

  it('a conflict copy recorded by its rename, whose pull then failed, is not recorded again by the try after', async () => {
    const { h, id, folder } = await synced();
    h.write(`${folder}/minutes.pdf`, 'our minutes', Date.now() - HOUR);
    h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'their minutes' });
    // The first download compares the two files' bytes (they differ); the pull's then fails.
    const inner = h.deps.remote;
    let downloads = 0;
    const remote = new Proxy(inner, {
      get: (target, prop) => {
        if (prop === 'downloadAttachment' && ++downloads > 1)
          return () => Promise.reject(new Error('connection reset'));
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

    await runCycle({ ...h.deps, remote }, { trigger: 'once', fullReconcile: true });
    expect(h.state.conflicts.list()).toHaveLength(1);
    expect(h.exists(`${folder}/minutes.pdf`)).toBe(false);
    await h.sync({ fullReconcile: true });
    await h.sync();

    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('their minutes');
    expect(h.state.conflicts.list()).toHaveLength(1);
    await settled(h);
  });

  it("a ` (2)` an earlier try placed and did not record (a restored folder's second file of one name) is taken as the service's file: not pulled again, not uploaded", async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.addAttachment(id, { name: 'resolution.pdf', bytes: 'resolution signed' });
    h.write(`${folder}/resolution (2).pdf`, 'resolution signed', Date.now() - HOUR);

    await h.sync();

    const signed = [...h.tree()].filter(([, sha]) => sha === sha256('resolution signed'));
    expect(signed.map(([rel]) => rel)).toEqual([`${folder}/resolution (2).pdf`]);
    const hashes = (await h.remoteDoc(id))!.attachments.map((a) => a.sha256);
    expect(hashes.filter((sha) => sha === sha256('resolution signed'))).toHaveLength(1);
    await settled(h);
  });

  it('a user attachment replaced locally while the service replaced it too: both versions survive', async () => {
    const { h, id, folder } = await synced();
    const old = (await h.remoteDoc(id))!.attachments[0]!;
    h.write(`${folder}/resolution.pdf`, 'resolution ours', Date.now() - HOUR);
    h.sim.admin.deleteAttachment(id, old.id);
    h.sim.admin.addAttachment(id, { name: 'resolution.pdf', bytes: 'resolution theirs' });

    await h.sync();
    await h.sync();

    expect(h.read(`${folder}/resolution.pdf`).toString()).toBe('resolution theirs');
    const hashes = (await h.remoteDoc(id))!.attachments.map((a) => a.sha256);
    expect(hashes.sort()).toEqual([sha256('resolution ours'), sha256('resolution theirs')].sort());
    await settled(h);
  });

  it('the same file added on both sides is no conflict: no copy, no upload', async () => {
    const { h, id, folder } = await synced();
    h.write(`${folder}/minutes.pdf`, 'the minutes', Date.now() - HOUR);
    h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'the minutes' });

    await h.sync();

    expect(h.writesToService()).toEqual({});
    expect(filesIn(h, folder)).toEqual(['minutes.pdf', 'resolution.pdf']);
    expect(h.state.conflicts.list()).toEqual([]);
    expect((await h.remoteDoc(id))!.attachments).toHaveLength(2);
    await settled(h);
  });

  it('modify beats delete: a folder deleted locally while the service changed it is restored', async () => {
    const { h, id, folder } = await synced();
    h.remove(folder);
    h.sim.admin.addAttachment(id, { name: 'appendix.pdf', bytes: 'appendix' });

    await h.sync();

    expect(await h.remoteDoc(id)).toBeDefined();
    const restored = h.documentFolder(id)!;
    expect(filesIn(h, restored)).toEqual(['appendix.pdf', 'resolution.pdf']);
    await settled(h);
  });

  it('modify beats delete: a service change made after the plan to delete the document stops the delete', async () => {
    const { h, id, folder } = await synced();
    h.remove(folder);
    // The plan saw nothing new in the service; a user adds an attachment just before the
    // delete's look at the document, which sees it.
    const remote = withDetails(h, id, 'before');

    await runCycle({ ...h.deps, remote }, { trigger: 'once', fullReconcile: true });

    expect((await h.remoteDoc(id))!.attachments.map((a) => a.name).sort()).toEqual([
      'appendix.pdf',
      'resolution.pdf',
    ]);
    await h.sync();
    expect(filesIn(h, h.documentFolder(id)!)).toEqual(['appendix.pdf', 'resolution.pdf']);
    await settled(h);
  });

  it('modify beats delete: a change a late answer hid from the trash copy stops the delete', async () => {
    const { h, id, folder } = await synced();
    h.remove(folder);
    // The delete's look at the document is answered as it was, and the attachment is added
    // while that answer travels: only the second look, just before the delete, sees it.
    const remote = withDetails(h, id, 'after');

    await runCycle({ ...h.deps, remote }, { trigger: 'once', fullReconcile: true });

    expect((await h.remoteDoc(id))!.attachments).toHaveLength(2);
    await h.sync();
    expect(filesIn(h, h.documentFolder(id)!)).toEqual(['appendix.pdf', 'resolution.pdf']);
    await settled(h);
  });

  it('modify beats delete: a document deleted in the service while changed locally is created again', async () => {
    const { h, id, folder } = await synced();
    h.write(`${folder}/signed.pdf`, 'signed resolution');
    h.sim.admin.deleteDocument(id);

    await h.sync();

    const again = (await h.remote()).documents.filter((d) => d.name === 'Solvency Resolution');
    expect(again).toHaveLength(1);
    expect(again[0]!.id).not.toBe(id);
    expect(again[0]!.attachments.map((a) => a.sha256).sort()).toEqual(
      [sha256('resolution v1'), sha256('signed resolution')].sort(),
    );
    expect(h.meta(folder).id).toBe(again[0]!.id);
    await settled(h);
  });

  it('case 11: every conflict is recorded, whichever side won', async () => {
    const { h, id, folder } = await synced();
    // Row 23: the folder's status edit is newer.
    h.sim.admin.assignStatus(id, { typeId: 21 });
    h.editMeta(folder, (m) => ({ ...m, status: 'cancelled' }), Date.now() + HOUR);
    // Row 43: the folder's file is newer than the service's of the same name.
    h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'service minutes' });
    h.write(`${folder}/minutes.pdf`, 'folder minutes', Date.now() + HOUR);
    await h.sync();
    // Row 24: the service's status is newer.
    h.editMeta(folder, (m) => ({ ...m, status: 'lodged' }), Date.now() - HOUR);
    h.sim.admin.assignStatus(id, { typeId: 2 });
    await h.sync();

    const { stdout } = await h.cli(['status', '--json']);
    const report = JSON.parse(stdout) as {
      conflicts: { total: number; recent: { winner: string; detail: string | null }[] };
    };
    expect(report.conflicts.total).toBe(3);
    const rows = report.conflicts.recent.map((c) => [
      c.winner,
      /^row (\d+)/.exec(c.detail ?? '')?.[1],
    ]);
    expect(rows.sort()).toEqual([
      ['local', '23'],
      ['local', '43'],
      ['remote', '24'],
    ]);
    expect((await h.cli(['status'])).stdout).toContain('Open conflicts: 3');
    await settled(h);
  });
});
