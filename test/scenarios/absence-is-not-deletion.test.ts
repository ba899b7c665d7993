/**
 * Absence is not deletion (daemon.md "Sync rules"; issue 15, cases 1 and 2): a folder that is
 * missing from where docsync last saw it was moved, archived or unmounted far more often than
 * deleted, and the service has no recycle bin. A missing entity folder is held and reported; a
 * document folder found elsewhere in the store is a move the service cannot follow, reported;
 * neither deletes anything, and putting the folder back resumes sync as if nothing happened.
 */
import { mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

/** Three companies with three documents each: one entity is a third of the firm. */
const FIRM = { companies: 3, trusts: 0, documentsPerEntity: 3, attachmentsPerDocument: 1, seed: 5 };

async function synced() {
  const h = await start({ seed: FIRM });
  expect((await h.sync()).result).toBe('ok');
  const [a, b] = await h.owners();
  const docsOf = async (id: string) =>
    (await h.remote()).documents.filter((d) => d.owner.id === id).map((d) => d.id);
  const outside = path.join(path.dirname(h.root), 'elsewhere');
  mkdirSync(outside, { recursive: true });
  return { h, a: a!, b: b!, aDocs: await docsOf(a!.id), outside };
}

describe('absence is not deletion', () => {
  it('case 1: an entity folder moved out of the root deletes nothing, is reported, and resumes when moved back', async () => {
    const { h, a, aDocs, outside } = await synced();
    const folder = h.entityFolder(a);
    const archived = path.join(outside, path.basename(folder));
    renameSync(path.join(h.root, folder), archived);

    // The scheduled cycle (a third of the firm missing stays under the 50 % rail), the watcher's
    // one-entity cycle, and a full reconcile.
    await h.sync({ fullReconcile: false });
    await h.sync({ fullReconcile: false, owners: [a] });
    const report = await h.sync();

    expect(report.result).toBe('partial');
    expect(
      (await h.remote()).documents.filter((d) => d.owner.id === a.id).map((d) => d.id),
    ).toEqual(aDocs);
    expect(h.writesToService()).toEqual({});
    expect(h.exists(folder), 'no empty stand-in folder is made').toBe(false);
    const problems = h.state.problems.list().filter((p) => p.owner.id === a.id);
    expect(problems.map((p) => p.reason).join('\n')).toContain('entity folder missing');

    renameSync(archived, path.join(h.root, folder));
    expect((await h.sync()).result).toBe('ok');
    expect(h.state.problems.list()).toEqual([]);
    await expectInSync(h);
    await expectQuiet(h);
  });

  it('case 1: an entity folder replaced by a symlink deletes nothing under --once', async () => {
    const { h, a, aDocs, outside } = await synced();
    const folder = h.entityFolder(a);
    const real = path.join(outside, path.basename(folder));
    renameSync(path.join(h.root, folder), real);
    symlinkSync(real, path.join(h.root, folder));

    const { code, stderr } = await h.cli(['run', '--once']);

    expect(code, stderr).toBe(3);
    expect((await h.remote()).documents.filter((d) => d.owner.id === a.id)).toHaveLength(
      aDocs.length,
    );
    const status = await h.cli(['status']);
    expect(status.stdout).toContain('entity folder missing');
    expect(status.stdout).toContain('a symbolic link; docsync does not follow links');
  });

  it('case 2: a document folder moved into another company deletes nothing and is reported on both sides', async () => {
    const { h, b, aDocs } = await synced();
    const moved = h.documentFolder(aDocs[0]!)!;
    const into = `${h.entityFolder(b)}/${path.posix.basename(moved)}`;
    h.rename(moved, into);
    h.resetCounters();

    const report = await h.sync();

    expect(report.result).toBe('partial');
    expect(h.writesToService()).toEqual({});
    expect((await h.remote()).documents.map((d) => d.id)).toContain(aDocs[0]);
    const reasons = h.state.problems
      .list()
      .map((p) => `${p.path}: ${p.reason}`)
      .join('\n');
    expect(reasons).toContain(into);
    expect(reasons).toMatch(/another (company|trust)/);

    h.rename(into, moved);
    expect((await h.sync()).result).toBe('ok');
    expect(h.state.problems.list()).toEqual([]);
    await expectInSync(h);
    await expectQuiet(h);
  });

  it('a document folder moved into a subfolder of its entity folder deletes nothing', async () => {
    const { h, a, aDocs } = await synced();
    const moved = h.documentFolder(aDocs[1]!)!;
    const archived = `${h.entityFolder(a)}/Archive/${path.posix.basename(moved)}`;
    h.rename(moved, archived);
    h.resetCounters();

    expect((await h.sync({ fullReconcile: false, owners: [a] })).result).toBe('partial');

    expect(h.writesToService()).toEqual({});
    expect(
      h.state.problems
        .list()
        .map((p) => p.reason)
        .join('\n'),
    ).toContain(archived);
  });

  it('a document folder really removed from a present entity folder is deleted in the service, its copy kept in the trash', async () => {
    const { h, aDocs } = await synced();
    const folder = h.documentFolder(aDocs[2]!)!;
    const before = (await h.remoteDoc(aDocs[2]!))!;
    h.remove(folder);

    expect((await h.sync()).result).toBe('ok');

    expect(await h.remoteDoc(aDocs[2]!)).toBeUndefined();
    const trashed = h.trash();
    for (const attachment of before.attachments)
      expect([...trashed.values()], attachment.name).toContain(attachment.sha256);
    const metaInTrash = [...trashed.keys()].find((p) => p.endsWith('.document.json'));
    expect(metaInTrash, 'the service copy is saved with its metadata').toBeDefined();
  });

  it('a user file deleted locally deletes its attachment in the service, the service copy kept in the trash', async () => {
    const { h, aDocs } = await synced();
    const id = aDocs[0]!;
    const added = h.sim.admin.addAttachment(id, { name: 'engagement.pdf', bytes: 'signed' });
    expect((await h.sync()).result).toBe('ok');
    const folder = h.documentFolder(id)!;
    h.remove(`${folder}/engagement.pdf`);

    expect((await h.sync()).result).toBe('ok');

    expect((await h.remoteDoc(id))!.attachments.map((a) => a.id)).not.toContain(added.id);
    expect(h.trash().get(`${folder}/engagement.pdf`)).toBe(sha256('signed'));
  });

  it('a moved folder whose document the service deletes meanwhile is trashed once it is back, not orphaned', async () => {
    const { h, b, aDocs } = await synced();
    const moved = h.documentFolder(aDocs[1]!)!;
    const into = `${h.entityFolder(b)}/${path.posix.basename(moved)}`;
    h.rename(moved, into);
    h.sim.admin.deleteDocument(aDocs[1]!);

    expect((await h.sync()).result).toBe('partial');
    h.rename(into, moved);
    expect((await h.sync()).result).toBe('ok');

    expect(h.exists(moved)).toBe(false);
    expect([...h.trash().keys()].some((p) => p.startsWith(`${moved}/`))).toBe(true);
    expect(h.state.problems.list()).toEqual([]);
    await expectInSync(h);
    await expectQuiet(h);
  });
});
