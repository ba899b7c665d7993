/**
 * `docsync conflicts` (issue 17): list, open and resolve, through the built CLI on the harness's
 * folder, state and simulator. Each resolution is checked where a user would look: the folder,
 * the service after the next sync, and the trash, which holds whatever a resolution removed.
 */
import { describe, expect, it } from 'vitest';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { type SyncHarness, sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const HOUR = 3_600_000;
const COPY = /^minutes \(conflict \d{4}-\d{2}-\d{2} \d{4}\)\.pdf$/;

async function synced() {
  const h = await start();
  const [company] = await h.owners();
  const doc = h.sim.admin.createDocument({ owner: company!, name: 'Board Minutes' });
  const id = String(doc.id);
  h.sim.admin.addAttachment(id, { name: 'resolution.pdf', bytes: 'resolution v1' });
  await h.sync();
  return { h, id, folder: h.documentFolder(id)! };
}

/** A file added on both sides under one name; `ours` newer or older than the service's. */
async function fileConflict(ours: 'newer' | 'older') {
  const s = await synced();
  const { h, id, folder } = s;
  const mtime = Date.now() + (ours === 'newer' ? HOUR : -HOUR);
  h.write(`${folder}/minutes.pdf`, 'our minutes', mtime);
  h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'their minutes' });
  await h.sync();
  await h.sync(); // a copy of ours (service newer) goes up on the cycle after
  const copy = filesIn(h, folder).find((f) => COPY.test(f))!;
  expect(copy).toBeDefined();
  const [conflict] = h.state.conflicts.list(10, { open: true });
  return { ...s, copy, conflictId: String(conflict!.id) };
}

const filesIn = (h: SyncHarness, folder: string) =>
  [...h.tree().keys()]
    .filter((rel) => rel.startsWith(`${folder}/`))
    .map((rel) => rel.slice(folder.length + 1))
    .filter((name) => name !== '.document.json')
    .sort();

const serviceFiles = async (h: SyncHarness, id: string) =>
  (await h.remoteDoc(id))!.attachments.map((a) => [a.name, a.sha256]).sort();

async function settled(h: SyncHarness) {
  await h.sync();
  await expectInSync(h);
  await expectQuiet(h);
}

describe('docsync conflicts list and open', () => {
  it("lists the open conflict and opens it: where the folder's and the service's versions are", async () => {
    const { h, folder, copy, conflictId } = await fileConflict('older');

    const listed = await h.cli(['conflicts']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${conflictId}  `);
    expect(listed.stdout).toContain('the service won');

    const opened = await h.cli(['conflicts', 'open', conflictId]);
    expect(opened.code).toBe(0);
    const lines = opened.stdout.split('\n');
    const pathAfter = (label: string) =>
      lines[lines.findIndex((l) => l.includes(label)) + 1]!.trim();
    expect(pathAfter('mine:')).toBe(`${h.root}/${folder}/${copy}`);
    expect(pathAfter('theirs:')).toBe(`${h.root}/${folder}/minutes.pdf`);
    expect(opened.stdout).toContain('in the service: http');

    const json = JSON.parse((await h.cli(['conflicts', 'open', conflictId, '--json'])).stdout);
    expect(json).toMatchObject({
      winner: 'remote',
      subject: { kind: 'file', file: 'minutes.pdf' },
    });
  });

  it('an unknown id, or a resolution that is not one, is refused with a sentence', async () => {
    const { h, conflictId } = await fileConflict('older');
    const unknown = await h.cli(['conflicts', 'open', '999']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No conflict has the id 999');
    const bad = await h.cli(['conflicts', 'resolve', conflictId, 'keep-all']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('keep-mine');
  });
});

describe('docsync conflicts resolve, a file added on both sides', () => {
  it('keep-both: nothing moves; both versions stay on both sides, the conflict is closed', async () => {
    const { h, id, folder, copy, conflictId } = await fileConflict('older');
    const before = h.tree();

    const resolved = await h.cli(['conflicts', 'resolve', conflictId, 'keep-both']);

    expect(resolved.code).toBe(0);
    expect(h.tree()).toEqual(before);
    expect((await h.cli(['conflicts'])).stdout).toContain('No open conflicts.');
    expect((await h.cli(['conflicts', 'list', '--all'])).stdout).toContain('resolved: keep-both');
    await settled(h);
    expect(await serviceFiles(h, id)).toEqual(
      [
        [copy, sha256('our minutes')],
        ['minutes.pdf', sha256('their minutes')],
        ['resolution.pdf', sha256('resolution v1')],
      ].sort(),
    );
    expect(filesIn(h, folder)).toEqual([copy, 'minutes.pdf', 'resolution.pdf'].sort());
  });

  it('keep-mine when the service won: our copy takes the name, theirs goes to the trash, the service follows', async () => {
    const { h, id, folder, conflictId } = await fileConflict('older');

    const resolved = await h.cli(['conflicts', 'resolve', conflictId, 'keep-mine']);

    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toContain('resolved: keep-mine');
    expect(filesIn(h, folder)).toEqual(['minutes.pdf', 'resolution.pdf']);
    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('our minutes');
    await settled(h);
    expect(await serviceFiles(h, id)).toEqual(
      [
        ['minutes.pdf', sha256('our minutes')],
        ['resolution.pdf', sha256('resolution v1')],
      ].sort(),
    );
    // Their version left the folder and the service, never the trash.
    expect([...h.trash().values()]).toContain(sha256('their minutes'));
  });

  it('keep-theirs when the service won: our copy goes to the trash, and from the service', async () => {
    const { h, id, folder, conflictId } = await fileConflict('older');

    expect((await h.cli(['conflicts', 'resolve', conflictId, 'keep-theirs'])).code).toBe(0);

    expect(filesIn(h, folder)).toEqual(['minutes.pdf', 'resolution.pdf']);
    await settled(h);
    expect(await serviceFiles(h, id)).toEqual(
      [
        ['minutes.pdf', sha256('their minutes')],
        ['resolution.pdf', sha256('resolution v1')],
      ].sort(),
    );
    expect([...h.trash().values()]).toContain(sha256('our minutes'));
  });

  it('keep-theirs when the folder won: their copy takes the name, ours goes to the trash', async () => {
    const { h, id, folder, conflictId } = await fileConflict('newer');

    expect((await h.cli(['conflicts', 'resolve', conflictId, 'keep-theirs'])).code).toBe(0);

    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('their minutes');
    await settled(h);
    expect(await serviceFiles(h, id)).toEqual(
      [
        ['minutes.pdf', sha256('their minutes')],
        ['resolution.pdf', sha256('resolution v1')],
      ].sort(),
    );
    expect([...h.trash().values()]).toContain(sha256('our minutes'));
  });

  it('a conflict resolved once is not resolved again', async () => {
    const { h, conflictId } = await fileConflict('older');
    expect((await h.cli(['conflicts', 'resolve', conflictId, 'keep-both'])).code).toBe(0);
    const again = await h.cli(['conflicts', 'resolve', conflictId, 'keep-mine']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already resolved (keep-both)');
  });
});

describe('docsync conflicts resolve, a status and a document', () => {
  it('a conflict is listed even when its line in the activity feed could not be written', async () => {
    const { h, id, folder } = await synced();
    // Every write to the feed fails from now on, as one does on SQLITE_BUSY past the timeout.
    h.state.db.exec(`CREATE TRIGGER activity_fails BEFORE INSERT ON activity
      BEGIN SELECT RAISE(ABORT, 'database is locked'); END`);
    h.sim.admin.assignStatus(id, { typeId: 21 });
    h.editMeta(folder, (m) => ({ ...m, status: 'cancelled' }), Date.now() + HOUR);

    const report = await h.sync();

    expect(report.result, 'the status was pushed: nothing failed').toBe('ok');
    expect((await h.remoteDoc(id))!.status).toMatchObject({ type: 'CANCELLED' });
    const listed = await h.cli(['conflicts', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { documentId: id, winner: 'local', subject: { kind: 'status' } },
    ]);
  });

  it("status set on both sides, the folder won: keep-theirs sets the service's status again", async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.assignStatus(id, { typeId: 21 });
    h.editMeta(folder, (m) => ({ ...m, status: 'cancelled' }), Date.now() + HOUR);
    await h.sync();
    expect((await h.remoteDoc(id))!.status).toMatchObject({ type: 'CANCELLED' });
    const conflictId = String(h.state.conflicts.list(1, { open: true })[0]!.id);

    const both = await h.cli(['conflicts', 'resolve', conflictId, 'keep-both']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('a document has one status');

    const theirs = await h.cli(['conflicts', 'resolve', conflictId, 'keep-theirs']);
    expect(theirs.code).toBe(0);
    expect(h.meta(folder).status).toBe('LODGED');
    await settled(h);
    expect((await h.remoteDoc(id))!.status).toMatchObject({ type: 'LODGED' });
  });

  it('folder deleted while the service changed it (restored): keep-mine deletes it after all, copies in the trash', async () => {
    const { h, id, folder } = await synced();
    h.remove(folder);
    h.sim.admin.addAttachment(id, { name: 'late.pdf', bytes: 'late addition' });
    await h.sync();
    const restored = h.documentFolder(id)!;
    expect(restored).toBeDefined();
    const conflictId = String(h.state.conflicts.list(1, { open: true })[0]!.id);

    const mine = await h.cli(['conflicts', 'resolve', conflictId, 'keep-mine']);

    expect(mine.code).toBe(0);
    expect(h.documentFolder(id)).toBeUndefined();
    await settled(h);
    expect(await h.remoteDoc(id)).toBeUndefined();
    expect([...h.trash().values()]).toContain(sha256('late addition'));
  });
});
