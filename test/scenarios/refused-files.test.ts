/**
 * A 4xx is a definite refusal (issue 15, case 6): the service looked at the request and applied
 * nothing. A file over the upload limit (api.md: 50 MiB, 413) is reported with the service's
 * reason, the document's other new files still go up, the same content is not sent again on
 * every run, and the file goes up as soon as it changes.
 */
import { closeSync, ftruncateSync, openSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const OVER_THE_LIMIT = 50 * 1024 * 1024 + 1;

const uploads = (requests: Record<string, number>) =>
  Object.entries(requests)
    .filter(([route]) => /^POST .*\/attachments/.test(route))
    .reduce((n, [, count]) => n + count, 0);

describe('case 6: a file the service refuses', () => {
  it('is reported with the reason, holds back nothing else, is not re-sent unchanged, and goes up once changed', async () => {
    const h = await start();
    expect((await h.sync()).result).toBe('ok');
    const id = (await h.remote()).documents[0]!.id;
    const folder = h.documentFolder(id)!;
    // A sparse file: 50 MiB and a byte, without writing them.
    const handle = openSync(path.join(h.root, folder, 'scan.tif'), 'w');
    ftruncateSync(handle, OVER_THE_LIMIT);
    closeSync(handle);
    h.write(`${folder}/cover note.txt`, 'cover note');

    const first = await h.cli(['run', '--once']);

    expect(first.code, first.stderr).toBe(3);
    const names = (await h.remoteDoc(id))!.attachments.map((a) => a.name);
    expect(names).toContain('cover note.txt');
    expect(names).not.toContain('scan.tif');
    const status = await h.cli(['status']);
    expect(status.stdout).toContain(`${folder}/scan.tif`);
    expect(status.stdout).toMatch(/refused by the service: .*413/);
    expect(status.stdout).not.toContain('may or may not');

    h.resetCounters();
    const second = await h.cli(['run', '--once']);

    expect(second.code, second.stderr).toBe(0);
    expect(uploads(h.requests()), 'the refused content is not sent again').toBe(0);
    expect((await h.cli(['status'])).stdout).toContain(`${folder}/scan.tif`);

    h.write(`${folder}/scan.tif`, 'a smaller scan');
    const third = await h.cli(['run', '--once']);

    expect(third.code, third.stderr).toBe(0);
    const scan = (await h.remoteDoc(id))!.attachments.find((a) => a.name === 'scan.tif');
    expect(scan?.sha256).toBe(sha256('a smaller scan'));
    const after = (await h.cli(['status', '--json'])).stdout;
    const report = JSON.parse(after) as {
      itemsInError: unknown[];
      pushes: { failed: number };
    };
    expect(report.itemsInError).toEqual([]);
    expect(report.pushes.failed).toBe(0);
  });
});

describe('case 6 of issue 25: names that collide as keys', () => {
  it('uploading x.pdf leaves the refusal of "x.pdf: y.pdf" in place: the refused file is not sent again', async () => {
    const h = await start();
    await h.sync();
    const id = (await h.remote()).documents[0]!.id;
    const folder = h.documentFolder(id)!;
    const handle = openSync(path.join(h.root, folder, 'x.pdf: y.pdf'), 'w');
    ftruncateSync(handle, OVER_THE_LIMIT);
    closeSync(handle);
    await h.sync();
    expect(h.state.outbox.failed().map((p) => p.payload)).toMatchObject([
      { fileName: 'x.pdf: y.pdf' },
    ]);

    h.write(`${folder}/x.pdf`, 'the small one');
    h.resetCounters();
    await h.sync();

    expect(uploads(h.requests()), 'only x.pdf goes up').toBe(1);
    const names = (await h.remoteDoc(id))!.attachments.map((a) => a.name);
    expect(names).toContain('x.pdf');
    expect(names).not.toContain('x.pdf: y.pdf');
    expect(h.state.outbox.failed().map((p) => p.payload)).toMatchObject([
      { fileName: 'x.pdf: y.pdf' },
    ]);
  });
});

describe('a status the service refuses', () => {
  it("holds back none of the document's files: a status type gone from the service since docsync read it, typed beside a replaced file", async () => {
    const h = await start();
    await h.sync();
    const remote = await h.remote();
    const doc = remote.documents.find((d) => d.attachments.some((a) => a.kind === 'user'))!;
    const folder = h.documentFolder(doc.id)!;
    const gone = remote.statusTypes.find((t) => t.name !== doc.status?.type)!;
    h.sim.admin.removeStatusType(gone.id);
    h.editMeta(folder, (meta) => ({ ...meta, status: gone.name }));
    const file = doc.attachments.find((a) => a.kind === 'user')!;
    h.write(`${folder}/${file.name}`, 'the person replaced it');

    // A poll round's sync: the status types are the ones read before, the gone one among them.
    await h.sync({ trigger: 'cron', fullReconcile: false });

    const after = (await h.remoteDoc(doc.id))!;
    expect(after.attachments.find((a) => a.name === file.name)?.sha256).toBe(
      sha256('the person replaced it'),
    );
    expect(after.status?.type).toBe(doc.status?.type);
    expect(h.meta(folder).status, "the person's status stays in the folder").toBe(gone.name);
    const status = (await h.cli(['status'])).stdout;
    expect(status).toContain(`${folder}/.document.json`);
    expect(status).toMatch(/refused by the service: .*422/);
  });
});
