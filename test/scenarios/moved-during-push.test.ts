/**
 * A new folder (or a new file) renamed while its create (or its upload) is with the service: the
 * service has carried it out, its answer is held back (the simulator's answer holds), the person
 * renames, then the answer arrives. Whatever the moment, that is one document (one attachment):
 * docsync finds the folder (the file) again by its identity on disk, not by its name, writes
 * `.document.json` there, and never creates it a second time nor pulls it back beside it.
 * `docsync run --once` as a user runs it; the crash variant kills a real child process while the
 * answer is held, then runs again.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runOnceKilledWhen, uploadsServed } from '../helpers/killed-run.js';
import { runCli } from '../helpers/run-cli.js';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { type SyncHarness, sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
/** Each test runs docsync two to four times, one of them perhaps a child process. */
const ROOM = { timeout: 60_000 };
const FIRM = { companies: 1, trusts: 0, documentsPerEntity: 1, attachmentsPerDocument: 1, seed: 3 };
const CREATE = { method: 'POST', template: '/companies/{ownerId}/documents' } as const;
const UPLOAD = {
  method: 'POST',
  template: '/companies/{ownerId}/documents/{documentId}/attachments',
} as const;

/** A synced company with one document, and its entity folder. */
async function syncedCompany(): Promise<{ h: SyncHarness; entity: string }> {
  const h = await start({ seed: FIRM });
  expect((await h.sync()).result).toBe('ok');
  const [company] = await h.owners();
  return { h, entity: h.entityFolder(company!) };
}

/** `docsync run --once` in this process, on the harness's folder, state and service. */
function runOnce(h: SyncHarness) {
  return h.cli(['run', '--once'], { log: { level: 'warn' } });
}

/** The entity folder's document folders, by name. */
function documentFolders(h: SyncHarness, entity: string): string[] {
  return readdirSync(path.join(h.root, entity), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** The service's documents named `name`. */
async function named(h: SyncHarness, name: string) {
  return (await h.remote()).documents.filter((d) => d.name === name);
}

/** One held answer: the service has carried the request out. */
async function untilHeld(h: SyncHarness) {
  await expect.poll(() => h.sim.admin.heldAnswers(), { timeout: 30_000 }).toBe(1);
}

describe('a new folder renamed while it is being created', ROOM, () => {
  it('is one document: .document.json is written into the renamed folder, its files uploaded, no empty folder beside it', async () => {
    const { h, entity } = await syncedCompany();
    const before = documentFolders(h, entity);
    h.write(`${entity}/2026-10-20 New a/minutes.pdf`, 'minutes');
    h.write(`${entity}/2026-10-20 New a/notes.txt`, 'notes');
    h.sim.admin.holdAnswers(CREATE);

    const run = runOnce(h);
    await untilHeld(h);
    h.rename(`${entity}/2026-10-20 New a`, `${entity}/New a renamed`);
    h.sim.admin.releaseAnswers();
    const first = await run;
    expect(first.code, first.stderr).toBe(0);

    // One document, with the name it was created under: the service has no rename, and a folder
    // renamed after its document exists keeps its new name (docs/syncing.md).
    const created = await named(h, 'New a');
    expect(created).toHaveLength(1);
    expect(created[0]!.documentDate).toBe('2026-10-20');
    expect(created[0]!.attachments.map((a) => [a.name, a.sha256]).sort()).toEqual([
      ['minutes.pdf', sha256('minutes')],
      ['notes.txt', sha256('notes')],
    ]);
    expect((await h.remote()).documents).toHaveLength(2);
    expect(documentFolders(h, entity)).toEqual([...before, 'New a renamed'].sort());
    expect(h.meta(`${entity}/New a renamed`)).toMatchObject({ id: created[0]!.id, name: 'New a' });

    const again = await runOnce(h);
    expect(again.code, again.stderr).toBe(0);
    expect(documentFolders(h, entity)).toEqual([...before, 'New a renamed'].sort());
    await expectInSync(h);
    await expectQuiet(h);
  });

  it('is one document after a crash while the answer was on its way, the folder renamed before the restart', async () => {
    const { h, entity } = await syncedCompany();
    const before = documentFolders(h, entity);
    h.write(`${entity}/2026-10-20 New a/minutes.pdf`, 'minutes');
    const config = writeCliConfig(path.dirname(h.root), h.sim, {
      settleSeconds: 0,
      queue: { requestsPerSecond: 1000, concurrency: 4 },
      log: { level: 'error' },
    });
    h.sim.admin.holdAnswers(CREATE);

    // Killed between the service's create and docsync hearing of it: the push is in doubt.
    const killed = await runOnceKilledWhen(h, config, () => h.sim.admin.heldAnswers() > 0);
    expect(killed.killed).toBe(true);
    h.rename(`${entity}/2026-10-20 New a`, `${entity}/New a renamed`);
    h.sim.admin.releaseAnswers();
    expect(await named(h, 'New a')).toHaveLength(1);

    const env = { DOCSYNC_REFRESH_TOKEN: h.sim.admin.mintRefreshToken() };
    const run = await runCli(['run', '--once', '--config', config], { env });
    expect(run.code, run.stderr).toBe(0);

    const created = await named(h, 'New a');
    expect(created).toHaveLength(1);
    expect(created[0]!.attachments.map((a) => [a.name, a.sha256])).toEqual([
      ['minutes.pdf', sha256('minutes')],
    ]);
    expect((await h.remote()).documents).toHaveLength(2);
    expect(documentFolders(h, entity)).toEqual([...before, 'New a renamed'].sort());
    expect(h.meta(`${entity}/New a renamed`).id).toBe(created[0]!.id);
    await expectInSync(h);
    await expectQuiet(h);
    // A real process, killed, then a second run: room for a busy machine, as the crash test has.
  }, 90_000);
});

describe('a create in doubt whose folder no longer shows the identity noted', ROOM, () => {
  it('takes the folder under its planned name as the one (a share mounted again gives new device numbers)', async () => {
    const { h, entity } = await syncedCompany();
    const before = documentFolders(h, entity);
    h.write(`${entity}/2026-10-20 New a/minutes.pdf`, 'minutes');
    const config = writeCliConfig(path.dirname(h.root), h.sim, {
      settleSeconds: 0,
      queue: { requestsPerSecond: 1000, concurrency: 4 },
      log: { level: 'error' },
    });
    h.sim.admin.holdAnswers(CREATE);
    const killed = await runOnceKilledWhen(h, config, () => h.sim.admin.heldAnswers() > 0);
    expect(killed.killed).toBe(true);
    h.sim.admin.releaseAnswers();
    // What a remount does to every identity on the share: the noted one matches nothing now.
    const changed = h.state.db
      .prepare(
        `UPDATE outbox SET payload_json = json_set(payload_json, '$.folderIdentity', '1:1')
         WHERE kind = 'create-document' AND state = 'sent'`,
      )
      .run().changes;
    expect(changed).toBe(1);

    const env = { DOCSYNC_REFRESH_TOKEN: h.sim.admin.mintRefreshToken() };
    const run = await runCli(['run', '--once', '--config', config], { env });
    expect(run.code, run.stderr).toBe(0);
    const created = await named(h, 'New a');
    expect(created).toHaveLength(1);
    expect(documentFolders(h, entity)).toEqual([...before, '2026-10-20 New a'].sort());
    expect(h.meta(`${entity}/2026-10-20 New a`).id).toBe(created[0]!.id);
    await expectInSync(h);
    await expectQuiet(h);
  });
});

describe(
  'a new folder renamed, and another made under its old name, while it is being created',
  ROOM,
  () => {
    it('links the created document to the renamed folder, never to the new one, which becomes its own document', async () => {
      const { h, entity } = await syncedCompany();
      const before = documentFolders(h, entity);
      h.write(`${entity}/2026-10-20 New a/minutes.pdf`, 'minutes');
      h.sim.admin.holdAnswers(CREATE);

      const run = runOnce(h);
      await untilHeld(h);
      h.rename(`${entity}/2026-10-20 New a`, `${entity}/New a renamed`);
      h.write(`${entity}/2026-10-20 New a/other.pdf`, 'another document');
      h.sim.admin.releaseAnswers();
      const first = await run;
      expect(first.code, first.stderr).toBe(0);
      const again = await runOnce(h);
      expect(again.code, again.stderr).toBe(0);

      const created = await named(h, 'New a');
      expect(created).toHaveLength(2);
      const holding = (bytes: string) =>
        created.find((d) => d.attachments.some((a) => a.sha256 === sha256(bytes)))!;
      expect(h.meta(`${entity}/New a renamed`).id).toBe(holding('minutes').id);
      expect(h.meta(`${entity}/2026-10-20 New a`).id).toBe(holding('another document').id);
      expect(documentFolders(h, entity)).toEqual(
        [...before, 'New a renamed', '2026-10-20 New a'].sort(),
      );
      await expectInSync(h);
      await expectQuiet(h);
    });
  },
);

describe(
  'a new folder moved into a subfolder of its entity folder while it is being created',
  ROOM,
  () => {
    it('is linked where it is, reported as moved out of place, and synced once it is back', async () => {
      const { h, entity } = await syncedCompany();
      const before = documentFolders(h, entity);
      h.write(`${entity}/2026-10-20 New a/minutes.pdf`, 'minutes');
      h.sim.admin.holdAnswers(CREATE);

      const run = runOnce(h);
      await untilHeld(h);
      h.rename(`${entity}/2026-10-20 New a`, `${entity}/Archive/2026/New a`);
      h.sim.admin.releaseAnswers();
      await run;
      const again = await runOnce(h);

      const created = await named(h, 'New a');
      expect(created).toHaveLength(1);
      expect((await h.remote()).documents).toHaveLength(2);
      expect(h.meta(`${entity}/Archive/2026/New a`).id).toBe(created[0]!.id);
      expect(documentFolders(h, entity)).toEqual([...before, 'Archive'].sort());
      expect(again.stdout).toContain('Archive/2026/New a');

      h.rename(`${entity}/Archive/2026/New a`, `${entity}/New a`);
      h.remove(`${entity}/Archive`);
      const back = await runOnce(h);
      expect(back.code, back.stderr).toBe(0);
      expect((await named(h, 'New a'))[0]!.attachments.map((a) => a.sha256)).toEqual([
        sha256('minutes'),
      ]);
      await expectInSync(h);
      await expectQuiet(h);
    });
  },
);

describe('a new folder moved out of its entity folder while it is being created', ROOM, () => {
  it('keeps the create recorded, pulls nothing back beside it, and links the folder once it is back under another name', async () => {
    const { h, entity } = await syncedCompany();
    const before = documentFolders(h, entity);
    h.write(`${entity}/2026-10-20 New a/minutes.pdf`, 'minutes');
    h.sim.admin.holdAnswers(CREATE);

    const run = runOnce(h);
    await untilHeld(h);
    h.rename(`${entity}/2026-10-20 New a`, 'Away/New a');
    h.sim.admin.releaseAnswers();
    const first = await run;
    const again = await runOnce(h);

    // Not found, not forgotten: no second create, no folder pulled for the created document,
    // and each run says why it is not done.
    expect(await named(h, 'New a')).toHaveLength(1);
    expect((await h.remote()).documents).toHaveLength(2);
    expect(documentFolders(h, entity)).toEqual(before);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain('CREATED_FOLDER_MISSING');
    expect(again.code).toBe(3);
    expect(again.stdout).toContain('moved out of its entity folder or removed');

    h.rename('Away/New a', `${entity}/Back again`);
    const back = await runOnce(h);
    expect(back.code, back.stderr).toBe(0);
    const created = await named(h, 'New a');
    expect(created).toHaveLength(1);
    expect(created[0]!.attachments.map((a) => a.sha256)).toEqual([sha256('minutes')]);
    expect(documentFolders(h, entity)).toEqual([...before, 'Back again'].sort());
    expect(h.meta(`${entity}/Back again`).id).toBe(created[0]!.id);
    h.remove('Away');
    await expectInSync(h);
    await expectQuiet(h);
  });
});

describe('a new file renamed while it is being uploaded', ROOM, () => {
  it('is one attachment: the renamed file is the uploaded one, not uploaded again, and the first not deleted', async () => {
    const { h, entity } = await syncedCompany();
    const [doc] = (await h.remote()).documents;
    const folder = h.documentFolder(doc!.id)!;
    expect(path.posix.dirname(folder)).toBe(entity);
    h.write(`${folder}/added.pdf`, 'added locally');
    h.resetCounters();
    h.sim.admin.holdAnswers(UPLOAD);

    const run = runOnce(h);
    await untilHeld(h);
    h.rename(`${folder}/added.pdf`, `${folder}/renamed.pdf`);
    h.sim.admin.releaseAnswers();
    const first = await run;
    expect(first.code, first.stderr).toBe(0);
    const again = await runOnce(h);
    expect(again.code, again.stderr).toBe(0);

    expect(uploadsServed(h)).toBe(1);
    expect(h.writesToService()).not.toHaveProperty(
      'DELETE /companies/{ownerId}/documents/{documentId}/attachments/{attachmentId} 204',
    );
    const after = (await h.remoteDoc(doc!.id))!;
    const added = after.attachments.filter((a) => a.sha256 === sha256('added locally'));
    expect(added).toHaveLength(1);
    expect(after.attachments).toHaveLength(doc!.attachments.length + 1);
    expect(h.exists(`${folder}/added.pdf`)).toBe(false);
    const listed = h.meta(folder).attachments.find((a) => a.id === added[0]!.id);
    expect(listed?.file).toBe('renamed.pdf');
    await expectQuiet(h);
  });
});
