/**
 * What the LocalStore port promises the engine, run against its adapter on a real temp folder.
 * (An in-memory fake once ran here too; no engine test used it, since the real folder is fast
 * enough, so it went: one implementation, tested as the daemon runs it.)
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalChangedError, PathEscapeError, UploadRefusedError } from '../../src/domain/errors.js';
import type { LocalFile } from '../../src/domain/types.js';
import type { UploadSource } from '../../src/domain/upload-source.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import type { Expected } from '../../src/local/local-store.js';
import {
  acme,
  createDocumentFolder,
  documentMeta,
  fsHarness,
  type Harness,
  smithTrust,
} from '../helpers/local-store-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const ACME = 'Companies/Acme Pty Ltd (123 456 789)';
const DOC = `${ACME}/2020-07-03 Trustee Minutes [1075468]`;
const LINK = 'https://app.example/s/html/main.html#/company/documents?cid=c0ffee-1';

const tempDir = useTempDir('docsync-store-');
let clock = new Date(2024, 5, 15, 12, 0);
const now = () => clock;

const make = (): Harness => fsHarness(tempDir(), { now });

describe('LocalStore contract (the fs adapter)', () => {
  async function withDocument(): Promise<Harness> {
    const h = make();
    const entity = await h.store.ensureEntityFolder(acme, LINK);
    await createDocumentFolder(h.store, entity, documentMeta());
    return h;
  }

  it('writes and finds the root marker', async () => {
    const h = make();
    expect(await h.store.hasMarker()).toBe(false);
    await h.store.writeMarker();
    expect(await h.store.hasMarker()).toBe(true);
  });

  it('creates an entity folder with its metadata and shortcut, and finds it by id after a rename', async () => {
    const h = make();
    expect(await h.store.ensureEntityFolder(acme, LINK)).toBe(ACME);
    expect(h.read(`${ACME}/Open in compliance service.url`)?.toString()).toBe(
      `[InternetShortcut]\r\nURL=${LINK}\r\n`,
    );
    const meta = JSON.parse(h.read(`${ACME}/.entity.json`)!.toString());
    expect(meta).toMatchObject({ kind: 'company', id: acme.id, link: LINK, entity: acme.raw });
    h.rename(ACME, 'Companies/Acme (renamed by Jo)');
    expect(await h.store.ensureEntityFolder(acme, LINK)).toBe('Companies/Acme (renamed by Jo)');
    expect(h.list('Companies')).toEqual(['Acme (renamed by Jo)']);
    const listed = await h.store.listEntityFolders();
    expect(listed).toEqual([
      {
        folder: 'Companies/Acme (renamed by Jo)',
        owner: { kind: 'company', id: acme.id },
        entity: acme.raw,
      },
    ]);
  });

  it("adopts a firm's existing folder for an entity, and scans it at a known folder", async () => {
    const h = make();
    h.mkdir('Companies/ACME PTY LTD - old files');
    h.write('Companies/ACME PTY LTD - old files/2019-01-01 Minutes/minutes.pdf', 'x');
    const adopted = await h.store.ensureEntityFolder(
      acme,
      LINK,
      'Companies/ACME PTY LTD - old files',
    );
    expect(adopted).toBe('Companies/ACME PTY LTD - old files');
    expect(await h.store.ensureEntityFolder(acme, LINK)).toBe(adopted);
    const snapshot = await h.store.scanEntity(acme, [], adopted);
    expect(snapshot.folder).toBe(adopted);
    expect(snapshot.documents.map((d) => d.folder)).toEqual([`${adopted}/2019-01-01 Minutes`]);
  });

  it('takes the folder a listing found for an entity as given, and null as "make one"', async () => {
    const h = make();
    await h.store.ensureEntityFolder(acme, LINK);
    h.rename(ACME, 'Companies/Acme (renamed by Jo)');
    expect(await h.store.ensureEntityFolder(acme, LINK, 'Companies/Acme (renamed by Jo)')).toBe(
      'Companies/Acme (renamed by Jo)',
    );
    const made = await h.store.ensureEntityFolder(smithTrust, LINK, null);
    expect(made).toBe('Trusts/Smith Family Trust');
    const meta = JSON.parse(h.read(`${made}/.entity.json`)!.toString());
    expect(meta).toMatchObject({ kind: 'trust', id: smithTrust.id, link: LINK });
  });

  it('gives a second entity with the same name (any case) a (2), and trusts without ABN a bare name', async () => {
    const h = make();
    await h.store.ensureEntityFolder({ ...acme, number: null }, LINK);
    const other = { ...acme, id: 'other', name: 'ACME PTY LTD', number: null };
    expect(await h.store.ensureEntityFolder(other, LINK)).toBe('Companies/ACME PTY LTD (2)');
    expect(await h.store.ensureEntityFolder(smithTrust, LINK)).toBe('Trusts/Smith Family Trust');
  });

  it("never makes an entity's folder at a path claimed by another entity, though nothing is there", async () => {
    const h = make();
    // Another company's folder of this name, which a person moved away and will put back.
    const claimed = ['Companies/Acme Pty Ltd (123 456 789)', 'Trusts/Acme Pty Ltd (123 456 789)'];
    const renumbered = { ...acme, id: 'entered-again' };
    expect(await h.store.ensureEntityFolder(renumbered, LINK, null, claimed)).toBe(
      'Companies/Acme Pty Ltd (123 456 789) (2)',
    );
    expect(h.exists(ACME)).toBe(false);
  });

  it('lists a folder without .entity.json as matching nothing', async () => {
    const h = make();
    h.mkdir('Companies/Someone Else');
    h.write('Trusts/Broken/.entity.json', '{ nope');
    const listed = await h.store.listEntityFolders();
    expect(listed.map((f) => [f.folder, f.owner])).toEqual([
      ['Companies/Someone Else', null],
      ['Trusts/Broken', null],
    ]);
    expect(listed[1]?.metaError).toMatch(/not JSON/);
  });

  it('creates a document folder with .document.json and scans it by id after the user renames it', async () => {
    const h = await withDocument();
    h.write(`${DOC}/Minutes.pdf`, 'pdf bytes');
    h.rename(DOC, `${ACME}/Minutes moved by Jo`);
    const snapshot = await h.store.scanEntity(acme);
    expect(snapshot.folder).toBe(ACME);
    expect(snapshot.documents).toHaveLength(1);
    const [doc] = snapshot.documents;
    expect(doc?.folder).toBe(`${ACME}/Minutes moved by Jo`);
    expect(doc?.meta?.id).toBe('1075468');
    expect(doc?.files.map((f) => [f.name, f.size, f.sha256])).toEqual([
      ['Minutes.pdf', 9, sha('pdf bytes')],
    ]);
  });

  it('creates a pulled document whole: its files and a .document.json that lists them', async () => {
    const h = make();
    const entity = await h.store.ensureEntityFolder(acme, LINK);
    const fill = (text: string) => async (file: string) => {
      await writeFile(file, text);
      return { sha256: sha(text) };
    };
    const created = await h.store.createDocumentFolderWithFiles(
      entity,
      documentMeta(),
      [
        { key: 'UA1', desiredName: 'minutes.pdf', fill: fill('signed minutes') },
        { key: 'UA2', desiredName: 'minutes.pdf', fill: fill('draft minutes') },
        { key: 'F3', desiredName: 'a:b.pdf', fill: fill('form') },
      ],
      (written) =>
        documentMeta({
          attachments: [...written].map(([id, f]) => ({
            id,
            kind: 'user',
            file: f.name,
            creationDate: null,
            sha256: f.sha256,
          })),
        }),
    );
    expect(created.folder).toBe(DOC);
    expect([...created.files].map(([key, f]) => [key, f.path, f.size])).toEqual([
      ['UA1', `${DOC}/minutes.pdf`, 14],
      ['UA2', `${DOC}/minutes (2).pdf`, 13],
      ['F3', `${DOC}/a_b.pdf`, 4],
    ]);
    expect(h.read(`${DOC}/minutes (2).pdf`)?.toString()).toBe('draft minutes');
    const [scanned] = (await h.store.scanEntity(acme)).documents;
    expect(scanned?.meta?.attachments.map((a) => a.file)).toEqual([
      'minutes.pdf',
      'minutes (2).pdf',
      'a_b.pdf',
    ]);
    expect(scanned?.files.map((f) => f.name).sort()).toEqual([
      'a_b.pdf',
      'minutes (2).pdf',
      'minutes.pdf',
    ]);
  });

  it('shows nothing of a pulled document whose download fails half way', async () => {
    const h = make();
    const entity = await h.store.ensureEntityFolder(acme, LINK);
    const files = [
      {
        key: 'UA1',
        desiredName: 'minutes.pdf',
        fill: async (file: string) => {
          await writeFile(file, 'signed minutes');
          return { sha256: sha('signed minutes') };
        },
      },
      {
        key: 'UA2',
        desiredName: 'form.pdf',
        fill: async () => {
          throw new Error('connection reset');
        },
      },
    ];
    await expect(
      h.store.createDocumentFolderWithFiles(entity, documentMeta(), files, () => documentMeta()),
    ).rejects.toThrow('connection reset');
    expect(h.list(ACME).filter((name) => !name.startsWith('.') && !name.endsWith('.url'))).toEqual(
      [],
    );
    expect((await h.store.scanEntity(acme)).documents).toEqual([]);
  });

  it('reports a broken .document.json instead of throwing, and a user-made folder with meta null', async () => {
    const h = await withDocument();
    h.write(`${DOC}/.document.json`, '{"id": 42');
    h.write(`${ACME}/2024-01-05 Trust deed/deed.pdf`, 'deed');
    const { documents } = await h.store.scanEntity(acme);
    expect(documents.map((d) => [d.folder, d.meta, d.metaError !== undefined])).toEqual([
      [DOC, null, true],
      [`${ACME}/2024-01-05 Trust deed`, null, false],
    ]);
    expect(documents[1]?.files.map((f) => f.name)).toEqual(['deed.pdf']);
  });

  it('leaves ignored files out of a scan', async () => {
    const h = await withDocument();
    for (const name of [
      '~$Minutes.docx',
      '.~lock.a.odt#',
      'a.swp',
      'x.tmp',
      'Thumbs.db',
      '4913',
      'keep.pdf',
    ]) {
      h.write(`${DOC}/${name}`, 'x');
    }
    const { documents } = await h.store.scanEntity(acme);
    expect(documents[0]?.files.map((f) => f.name)).toEqual(['keep.pdf']);
  });

  it('reports a file whose name holds a control character instead of syncing it', async () => {
    const h = await withDocument();
    h.write(`${DOC}/new\nline.txt`, 'x');
    h.write(`${DOC}/tab\there.pdf`, 'x');
    h.write(`${DOC}/escape\u001b.pdf`, 'x');
    h.write(`${DOC}/~$locked.docx`, 'x');
    h.write(`${DOC}/keep.pdf`, 'keep');
    const snapshot = await h.store.scanEntity(acme);
    expect(snapshot.documents[0]?.files.map((f) => f.name)).toEqual(['keep.pdf']);
    // Ignored files stay silently out; the others are reported, on one line each.
    expect(snapshot.skipped).toEqual([
      {
        path: `${DOC}/escape\\x1b.pdf`,
        reason:
          'a name with a control character (U+001B), which the service cannot store: rename it without it',
      },
      {
        path: `${DOC}/new\\nline.txt`,
        reason: 'a name with a line break, which the service cannot store: rename it without it',
      },
      {
        path: `${DOC}/tab\\there.pdf`,
        reason: 'a name with a tab, which the service cannot store: rename it without it',
      },
    ]);
    expect(snapshot.unsettled).toBe(0);
  });

  it('keeps an agreed attachment whose name cannot be synced as the base knew it', async () => {
    const h = await withDocument();
    h.write(`${DOC}/old\nname.pdf`, 'changed since');
    const hint = {
      id: '1075468',
      attachments: [
        {
          id: 'UA1',
          kind: 'user' as const,
          file: 'old\nname.pdf',
          sha256: 'agreed',
          size: 6,
          mtimeMs: 1,
        },
      ],
    };
    const snapshot = await h.store.scanEntity(acme, [hint]);
    expect(snapshot.documents[0]?.files).toEqual([
      { name: 'old\nname.pdf', size: 6, mtimeMs: 1, sha256: 'agreed' },
    ]);
    expect(snapshot.skipped.map((s) => s.reason)).toEqual([
      'a name with a line break, which the service cannot store: rename it without it; until then the service keeps the attachment as last synced',
    ]);
  });

  it('holds a new folder whose name holds a control character, and syncs a known one by id', async () => {
    const h = await withDocument();
    h.write(`${ACME}/Minutes\n2024/minutes.pdf`, 'x');
    h.rename(DOC, `${ACME}/Trustee\tMinutes`);
    const snapshot = await h.store.scanEntity(acme);
    expect(snapshot.documents.map((d) => [d.folder, d.meta?.id ?? d.metaError, d.files])).toEqual([
      [
        `${ACME}/Minutes\n2024`,
        'not synced: a name with a line break, which the service cannot store: rename it without it',
        [],
      ],
      [`${ACME}/Trustee\tMinutes`, '1075468', []],
    ]);
    expect(snapshot.skipped.map((s) => s.path)).toEqual([`${ACME}/Minutes\\n2024`]);
  });

  it('takes size, mtime and sha256 from the base when size and mtime match', async () => {
    const h = await withDocument();
    h.write(`${DOC}/a.pdf`, 'aaaa', 1_700_000_000_000);
    const hint = {
      id: '1075468',
      attachments: [
        {
          id: 'UA1',
          kind: 'user' as const,
          file: 'a.pdf',
          sha256: 'from-base',
          size: 4,
          mtimeMs: 1_700_000_000_000,
        },
      ],
    };
    const quiet = await h.store.scanEntity(acme, [hint]);
    expect(quiet.documents[0]?.files[0]?.sha256).toBe('from-base');
    h.write(`${DOC}/a.pdf`, 'bbbbb', 1_700_000_000_000);
    const changed = await h.store.scanEntity(acme, [hint]);
    expect(changed.documents[0]?.files[0]?.sha256).toBe(sha('bbbbb'));
  });

  it('places files without overwriting: (2) on a clash in any letter case', async () => {
    const h = await withDocument();
    h.write(`${DOC}/Minutes.pdf`, 'user copy');
    const placed = await h.store.placeFile(DOC, 'MINUTES.pdf', Buffer.from('remote'));
    expect(placed).toMatchObject({
      path: `${DOC}/MINUTES (2).pdf`,
      name: 'MINUTES (2).pdf',
      size: 6,
      sha256: sha('remote'),
    });
    expect(h.read(`${DOC}/Minutes.pdf`)?.toString()).toBe('user copy');
  });

  it('fills a file through a path (a download), and lends scratch paths that are gone after', async () => {
    const h = await withDocument();
    const filler = {
      fill: async (temp: string) => {
        await writeFile(temp, 'filled');
        return { sha256: sha('filled') };
      },
    };
    expect(await h.store.placeFile(DOC, 'filled.pdf', filler)).toMatchObject({
      name: 'filled.pdf',
      size: 6,
      sha256: sha('filled'),
    });
    expect(h.read(`${DOC}/filled.pdf`)?.toString()).toBe('filled');
    let lent = '';
    const answer = await h.store.withScratchFile(async (scratch) => {
      lent = scratch;
      await writeFile(scratch, 'looked at, never placed');
      return 42;
    });
    expect(answer).toBe(42);
    expect(existsSync(lent)).toBe(false);
  });

  it('places a stream, and names that would be ignored or escape are made safe', async () => {
    const h = await withDocument();
    async function* chunks() {
      yield Buffer.from('part 1, ');
      yield Buffer.from('part 2');
    }
    expect((await h.store.placeFile(DOC, '~$budget.xlsx', chunks())).name).toBe('_~$budget.xlsx');
    expect((await h.store.placeFile(DOC, '../../evil.pdf', 'x')).path).toBe(
      `${DOC}/_._.._evil.pdf`,
    );
    expect((await h.store.placeFile(DOC, '.document.json', 'x')).name).toBe('_document.json');
    expect(h.read(`${DOC}/_~$budget.xlsx`)?.toString()).toBe('part 1, part 2');
  });

  it('leaves nothing in the folder when the download fails midway', async () => {
    const h = await withDocument();
    async function* failing() {
      yield Buffer.from('half');
      throw new Error('connection reset');
    }
    await expect(h.store.placeFile(DOC, 'a.pdf', failing())).rejects.toThrow('connection reset');
    expect(h.list(DOC)).toEqual(['.document.json']);
  });

  it('places a file a writer fills by path, and nothing when the writer fails', async () => {
    const h = await withDocument();
    const placed = await h.store.placeFile(DOC, 'deed.pdf', {
      fill: async (temp: string) => {
        await writeFile(temp, 'downloaded bytes');
        return { sha256: sha('downloaded bytes') };
      },
    });
    expect(placed).toMatchObject({
      path: `${DOC}/deed.pdf`,
      size: 16,
      sha256: sha('downloaded bytes'),
    });
    expect(h.read(`${DOC}/deed.pdf`)?.toString()).toBe('downloaded bytes');
    const failed = h.store.placeFile(DOC, 'other.pdf', {
      fill: async (temp: string) => {
        await writeFile(temp, 'half');
        throw new Error('truncated');
      },
    });
    await expect(failed).rejects.toThrow('truncated');
    expect(h.list(DOC)).toEqual(['.document.json', 'deed.pdf']);
  });

  it('moves files and folders to the dated trash, never overwriting an earlier entry', async () => {
    const h = await withDocument();
    h.write(`${DOC}/a.pdf`, 'first');
    expect(await h.store.trash(`${DOC}/a.pdf`, await h.store.lookAt(`${DOC}/a.pdf`))).toBe(
      `.docsync/trash/2024-06-15/${DOC}/a.pdf`,
    );
    h.write(`${DOC}/a.pdf`, 'second');
    expect(await h.store.trash(`${DOC}/a.pdf`, await h.store.lookAt(`${DOC}/a.pdf`))).toBe(
      `.docsync/trash/2024-06-15/${DOC}/a (2).pdf`,
    );
    expect(h.read(`.docsync/trash/2024-06-15/${DOC}/a.pdf`)?.toString()).toBe('first');
    expect(h.read(`.docsync/trash/2024-06-15/${DOC}/a (2).pdf`)?.toString()).toBe('second');
    expect(await h.store.trash(DOC, await h.store.lookAt(DOC))).toBe(
      `.docsync/trash/2024-06-15/${DOC} (2)`,
    );
    expect(h.exists(DOC)).toBe(false);
    expect(h.exists(`.docsync/trash/2024-06-15/${DOC} (2)/.document.json`)).toBe(true);
  });

  it('renames to a conflict name without replacing anything', async () => {
    const h = await withDocument();
    h.write(`${DOC}/a.pdf`, 'mine');
    h.write(`${DOC}/a (conflict).pdf`, 'older');
    expect(
      await h.store.renameFile(
        `${DOC}/a.pdf`,
        'a (conflict).pdf',
        await h.store.lookAt(`${DOC}/a.pdf`),
      ),
    ).toBe('a (conflict) (2).pdf');
    expect(h.list(DOC)).toEqual(['.document.json', 'a (conflict) (2).pdf', 'a (conflict).pdf']);
  });

  it('restores an edited system attachment and keeps the edit as (local edit)', async () => {
    const h = await withDocument();
    const restore = async () =>
      h.store.restoreSystemAttachment(
        DOC,
        'Minutes.pdf',
        'original',
        await h.store.lookAt(`${DOC}/Minutes.pdf`),
      );
    h.write(`${DOC}/Minutes.pdf`, 'edited by Jo');
    const restored = await restore();
    expect(restored.editedCopy).toBe('Minutes (local edit).pdf');
    expect(restored.file.sha256).toBe(sha('original'));
    expect(h.read(`${DOC}/Minutes.pdf`)?.toString()).toBe('original');
    expect(h.read(`${DOC}/Minutes (local edit).pdf`)?.toString()).toBe('edited by Jo');
    expect((await restore()).editedCopy).toBeNull();
    h.remove(`${DOC}/Minutes.pdf`);
    expect((await restore()).editedCopy).toBeNull();
    expect(h.read(`${DOC}/Minutes.pdf`)?.toString()).toBe('original');
  });

  it('sweeps trash days older than the retention, and only those', async () => {
    const h = await withDocument();
    h.write(`${DOC}/old.pdf`, 'old');
    h.write(`${DOC}/new.pdf`, 'new');
    clock = new Date(2024, 4, 1, 9, 0);
    await h.store.trash(`${DOC}/old.pdf`, await h.store.lookAt(`${DOC}/old.pdf`));
    clock = new Date(2024, 5, 10, 9, 0);
    await h.store.trash(`${DOC}/new.pdf`, await h.store.lookAt(`${DOC}/new.pdf`));
    clock = new Date(2024, 5, 15, 12, 0);
    expect(await h.store.sweepTrash()).toEqual(['.docsync/trash/2024-05-01']);
    expect(h.list('.docsync/trash')).toEqual(['2024-06-10']);
  });

  it('deletes for good only through the trash', async () => {
    const h = await withDocument();
    await h.store.deletePermanently(DOC, await h.store.lookAt(DOC));
    expect(h.exists(DOC)).toBe(false);
    expect(h.exists(`.docsync/trash/2024-06-15/${DOC}`)).toBe(false);
    expect(h.exists(`.docsync/trash/2024-06-15/${ACME}`)).toBe(true);
  });

  it('refuses every path that leaves the root', async () => {
    const h = await withDocument();
    await expect(h.store.trash('../outside', { kind: 'absent' })).rejects.toBeInstanceOf(
      PathEscapeError,
    );
    await expect(h.store.placeFile('../../tmp', 'a.pdf', 'x')).rejects.toBeInstanceOf(
      PathEscapeError,
    );
    await expect(
      h.store.writeDocumentMeta(`${ACME}/../../..`, documentMeta(), { kind: 'absent' }),
    ).rejects.toBeInstanceOf(PathEscapeError);
  });
});

describe('LocalStore: a file opened for an upload', () => {
  /** `name` in the document folder, as a scan sees it: what an upload is planned from. */
  async function planned(h: Harness, name: string): Promise<LocalFile> {
    const [doc] = (await h.store.scanEntity(acme)).documents;
    const file = doc!.files.find((f) => f.name === name);
    if (!file) throw new Error(`the scan does not see ${name}`);
    return file;
  }

  async function withFile(content = 'abc') {
    const h = make();
    const entity = await h.store.ensureEntityFolder(acme, LINK);
    await createDocumentFolder(h.store, entity, documentMeta());
    // A whole second: written again with this mtime, the file reads back the very same mtimeMs.
    h.write(`${DOC}/a.pdf`, content, Math.floor(Date.now() / 1000) * 1000 - 60_000);
    return { h, file: await planned(h, 'a.pdf') };
  }

  /** What one attempt sends: every byte the source hands over. */
  async function send(source: UploadSource): Promise<string> {
    const opened = await source.open();
    try {
      const chunks: Uint8Array[] = [];
      for await (const chunk of opened.chunks()) chunks.push(chunk);
      return Buffer.concat(chunks).toString();
    } finally {
      await opened.close();
    }
  }

  it('reads the file from what it opened, and says what it sent', async () => {
    const { h, file } = await withFile('abc');
    const source = h.store.uploadSource(`${DOC}/a.pdf`, file);
    expect(source.sent()).toBeNull();
    expect(await send(source)).toBe('abc');
    expect(source.sent()).toEqual(file);
    // A retry opens it again, and reads it again.
    expect(await send(source)).toBe('abc');
  });

  it('sends nothing of a file replaced by a link, even to a file inside the folder', async () => {
    const { h, file } = await withFile();
    h.write('secret.txt', 'the secret');
    h.remove(`${DOC}/a.pdf`);
    symlinkSync(path.join(h.root, 'secret.txt'), path.join(h.root, DOC, 'a.pdf'));
    const source = h.store.uploadSource(`${DOC}/a.pdf`, file);
    const error = await source.open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadRefusedError);
    expect((error as Error).message).toMatch(/a\.pdf is a symbolic link: .*nothing was sent/);
  });

  it('sends nothing of a named pipe put in its place, and does not wait for a writer', async () => {
    const { h, file } = await withFile();
    h.remove(`${DOC}/a.pdf`);
    execFileSync('mkfifo', [path.join(h.root, DOC, 'a.pdf')]);
    const source = h.store.uploadSource(`${DOC}/a.pdf`, file);
    await expect(source.open()).rejects.toThrow(/is a named pipe, not a regular file/);
  });

  it('sends nothing through a folder that became a link out of the root', async () => {
    const { h, file } = await withFile('abc');
    const outside = tempDir();
    writeFileSync(path.join(outside, 'a.pdf'), 'the secret');
    h.rename(DOC, `${ACME}/moved away`);
    symlinkSync(outside, path.join(h.root, DOC));
    const source = h.store.uploadSource(`${DOC}/a.pdf`, file);
    await expect(source.open()).rejects.toThrow(/is reached through a link out of the folder/);
  });

  it('sends nothing of a file changed since it was planned: it is planned again', async () => {
    const { h, file } = await withFile('abc');
    h.write(`${DOC}/a.pdf`, 'abcd');
    const source = h.store.uploadSource(`${DOC}/a.pdf`, file);
    const error = await source.open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalChangedError);
    expect(error).not.toBeInstanceOf(UploadRefusedError);
  });

  it('refuses another file, as the plan saw it, on a retry', async () => {
    const { h, file } = await withFile('abc');
    const source = h.store.uploadSource(`${DOC}/a.pdf`, file);
    expect(await send(source)).toBe('abc');
    // Same name, size and mtime; another inode.
    h.rename(`${DOC}/a.pdf`, `${DOC}/old.pdf`);
    h.write(`${DOC}/a.pdf`, 'xyz', file.mtimeMs);
    await expect(source.open()).rejects.toThrow(/replaced by another file between two attempts/);
  });

  it('hashes the bytes it sent, not the ones the scan read', async () => {
    const { h, file } = await withFile('abc');
    // Rewritten in place, its size and mtime kept (as `cp -p` or a restore leaves them).
    h.write(`${DOC}/a.pdf`, 'xyz', file.mtimeMs);
    const source = h.store.uploadSource(`${DOC}/a.pdf`, file);
    expect(await send(source)).toBe('xyz');
    expect(source.sent()).toEqual({ ...file, sha256: sha('xyz') });
  });

  it('fails the read of a file changed while it is sent, before its last bytes go', async () => {
    const { h, file } = await withFile('abc');
    const source = h.store.uploadSource(`${DOC}/a.pdf`, file);
    const opened = await source.open();
    h.write(`${DOC}/a.pdf`, 'abcdef');
    const reading = (async () => {
      for await (const _ of opened.chunks());
    })();
    await expect(reading).rejects.toThrow(/changed while it was sent/);
    await opened.close();
    expect(source.sent()).toBeNull();
  });
});

describe('LocalStore: a write over what the plan saw (issue 25)', () => {
  /** The document folder scanned, and what the scan saw of each entry. */
  async function scanned(h: Harness) {
    const [doc] = (await h.store.scanEntity(acme)).documents;
    const seen = doc!.seen!;
    const file = (name: string): Expected => ({ kind: 'file', stamp: seen.get(name)! });
    return { doc: doc!, seen, file, folder: { kind: 'folder', entries: seen } as const };
  }

  async function withFiles(): Promise<Harness> {
    const h = fsHarness(tempDir(), { now });
    const entity = await h.store.ensureEntityFolder(acme, LINK);
    await createDocumentFolder(h.store, entity, documentMeta());
    h.write(`${DOC}/minutes.pdf`, 'minutes');
    h.write(`${DOC}/Form 484.pdf`, 'edited form');
    return h;
  }

  it('sees every entry of a document folder, .document.json among them', async () => {
    const h = await withFiles();
    const { seen } = await scanned(h);
    expect([...seen.keys()].sort()).toEqual(['.document.json', 'Form 484.pdf', 'minutes.pdf']);
  });

  it('rewrites .document.json only while it is as seen, and expects its own write next', async () => {
    const h = await withFiles();
    const { file } = await scanned(h);
    const first = await h.store.writeDocumentMeta(
      DOC,
      documentMeta({ status: 'LODGED' }),
      file('.document.json'),
    );
    const second = h.store.writeDocumentMeta(DOC, documentMeta({ status: 'CANCELLED' }), first);
    await expect(second).resolves.toMatchObject({ kind: 'file' });

    h.write(`${DOC}/.document.json`, JSON.stringify(documentMeta({ status: 'typed by Jo' })));
    const refused = h.store.writeDocumentMeta(DOC, documentMeta(), await second);
    await expect(refused).rejects.toBeInstanceOf(LocalChangedError);
    expect(JSON.parse(h.read(`${DOC}/.document.json`)!.toString()).status).toBe('typed by Jo');
    expect(h.list('.docsync/tmp'), 'no temp file left behind').toEqual([]);
  });

  it('writes a .document.json expected absent only where there is none', async () => {
    const h = await withFiles();
    const absent = h.store.writeDocumentMeta(DOC, documentMeta(), { kind: 'absent' });
    await expect(absent).rejects.toBeInstanceOf(LocalChangedError);
    h.remove(`${DOC}/.document.json`);
    await expect(
      h.store.writeDocumentMeta(DOC, documentMeta(), { kind: 'absent' }),
    ).resolves.toMatchObject({ kind: 'file' });
  });

  it('finds a folder or a file again by its identity on disk after a rename, never a link to it', async () => {
    const h = await withFiles();
    const folder = await h.store.identityOf(DOC);
    const file = await h.store.identityOf(`${DOC}/minutes.pdf`);
    expect(folder).not.toBeNull();
    expect(file).not.toBe(folder);
    h.rename(`${DOC}/minutes.pdf`, `${DOC}/minutes (signed).pdf`);
    h.rename(DOC, `${ACME}/Minutes, renamed by Jo`);
    expect(await h.store.findByIdentity(ACME, folder!)).toBe(`${ACME}/Minutes, renamed by Jo`);
    const moved = `${ACME}/Minutes, renamed by Jo`;
    expect(await h.store.findByIdentity(moved, file!)).toBe(`${moved}/minutes (signed).pdf`);
    expect(await h.store.identityOf(`${moved}/minutes (signed).pdf`)).toBe(file);
    await expect(h.store.identityOf(DOC)).rejects.toMatchObject({ code: 'ENOENT' });
    // Deeper in the entity folder: found when asked to look that deep.
    h.mkdir(`${ACME}/Archive/2026`);
    const archived = `${ACME}/Archive/2026/Minutes`;
    h.rename(moved, archived);
    expect(await h.store.findByIdentity(ACME, folder!)).toBeNull();
    expect(await h.store.findByIdentity(ACME, folder!, 2)).toBeNull();
    expect(await h.store.findByIdentity(ACME, folder!, 3)).toBe(archived);
    h.rename(archived, 'Elsewhere');
    const root = (h.store as FsLocalStore).root;
    symlinkSync(path.join(root, 'Elsewhere'), path.join(root, ACME, 'A link to it'));
    expect(await h.store.findByIdentity(ACME, folder!, 3)).toBeNull();
  });

  it('writes .document.json into a folder only while it is the folder with that identity', async () => {
    const h = await withFiles();
    const identity = await h.store.identityOf(DOC);
    h.remove(`${DOC}/.document.json`);
    h.rename(DOC, `${ACME}/Renamed`);
    h.write(`${DOC}/other.pdf`, 'another folder under the old name');
    const wrong = h.store.writeDocumentMeta(DOC, documentMeta(), { kind: 'absent' }, identity);
    await expect(wrong).rejects.toMatchObject({ code: 'LOCAL_CHANGED', path: DOC });
    expect(h.exists(`${DOC}/.document.json`)).toBe(false);
    const right = h.store.writeDocumentMeta(
      `${ACME}/Renamed`,
      documentMeta(),
      { kind: 'absent' },
      identity,
    );
    await expect(right).resolves.toMatchObject({ kind: 'file' });
    h.rename(`${ACME}/Renamed`, `${ACME}/Renamed again`);
    const gone = h.store.writeDocumentMeta(
      `${ACME}/Renamed`,
      documentMeta(),
      { kind: 'absent' },
      identity,
    );
    await expect(gone).rejects.toMatchObject({ code: 'LOCAL_CHANGED' });
    expect(h.list('.docsync/tmp'), 'no temp file left behind').toEqual([]);
  });

  it('renames to a conflict copy only the file as seen', async () => {
    const h = await withFiles();
    const { file } = await scanned(h);
    h.write(`${DOC}/minutes.pdf`, 'minutes, edited again');
    const rename = h.store.renameFile(
      `${DOC}/minutes.pdf`,
      'minutes (conflict).pdf',
      file('minutes.pdf'),
    );
    await expect(rename).rejects.toBeInstanceOf(LocalChangedError);
    expect(h.list(DOC)).toEqual(['.document.json', 'Form 484.pdf', 'minutes.pdf']);
  });

  it('puts a system form back over the edit as seen, not over a later one', async () => {
    const h = await withFiles();
    const { file } = await scanned(h);
    h.write(`${DOC}/Form 484.pdf`, 'edited form, twice');
    const restore = h.store.restoreSystemAttachment(
      DOC,
      'Form 484.pdf',
      'original',
      file('Form 484.pdf'),
    );
    await expect(restore).rejects.toBeInstanceOf(LocalChangedError);
    expect(h.read(`${DOC}/Form 484.pdf`)?.toString()).toBe('edited form, twice');
    // Holding the original bytes already, it is put back whatever was expected.
    h.write(`${DOC}/Form 484.pdf`, 'original');
    const same = await h.store.restoreSystemAttachment(DOC, 'Form 484.pdf', 'original', {
      kind: 'absent',
    });
    expect(same.editedCopy).toBeNull();
  });

  it('trashes a file only as seen', async () => {
    const h = await withFiles();
    const { file } = await scanned(h);
    h.write(`${DOC}/minutes.pdf`, 'minutes v2');
    await expect(h.store.trash(`${DOC}/minutes.pdf`, file('minutes.pdf'))).rejects.toBeInstanceOf(
      LocalChangedError,
    );
    expect(h.exists(`${DOC}/minutes.pdf`)).toBe(true);
  });

  it.each([
    ['a file added', (h: Harness) => h.write(`${DOC}/new.pdf`, 'new')],
    ['a file changed', (h: Harness) => h.write(`${DOC}/minutes.pdf`, 'minutes v2')],
    ['a file removed', (h: Harness) => h.remove(`${DOC}/minutes.pdf`)],
    [
      '.document.json edited',
      (h: Harness) =>
        h.write(`${DOC}/.document.json`, JSON.stringify(documentMeta({ status: 'X' }))),
    ],
    ['a subfolder made', (h: Harness) => h.mkdir(`${DOC}/drafts`)],
  ])('trashes a document folder only as seen: not after %s', async (_, change) => {
    const h = await withFiles();
    const { folder } = await scanned(h);
    change(h);
    await expect(h.store.trash(DOC, folder)).rejects.toBeInstanceOf(LocalChangedError);
    await expect(h.store.deletePermanently(DOC, folder)).rejects.toBeInstanceOf(LocalChangedError);
    expect(h.exists(DOC)).toBe(true);
    expect(h.list('.docsync/trash'), 'nothing moved to the trash').toEqual([]);
  });

  it('trashes a document folder as seen, ignored files aside', async () => {
    const h = fsHarness(tempDir(), { now, ignore: ['**/~$*'] });
    const entity = await h.store.ensureEntityFolder(acme, LINK);
    await createDocumentFolder(h.store, entity, documentMeta());
    h.write(`${DOC}/minutes.pdf`, 'minutes');
    const { folder } = await scanned(h);
    h.write(`${DOC}/~$minutes.docx`, 'an editor lock file');
    expect(await h.store.trash(DOC, folder)).toBe(`.docsync/trash/2024-06-15/${DOC}`);
  });

  it('leaves a file still changing out of what it saw, so nothing is written over it', async () => {
    const root = tempDir();
    const h = fsHarness(root, { now: () => new Date() });
    const entity = await h.store.ensureEntityFolder(acme, LINK);
    await createDocumentFolder(h.store, entity, documentMeta());
    const settling = new FsLocalStore({ root, settleSeconds: 60 });
    h.write(`${DOC}/scan.tif`, 'half a scan');
    const [doc] = (await settling.scanEntity(acme)).documents;
    expect([...doc!.seen!.keys()]).toEqual(['.document.json']);
    const folder: Expected = { kind: 'folder', entries: doc!.seen! };
    await expect(settling.trash(DOC, folder)).rejects.toBeInstanceOf(LocalChangedError);
  });
});
