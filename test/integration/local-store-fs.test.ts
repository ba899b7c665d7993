/** What only a real folder can show: crashes mid-write, hashing by stat, settling, symlinks. */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PathEscapeError } from '../../src/domain/errors.js';
import { writeFileAtomic } from '../../src/local/atomic-write.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { acme, createDocumentFolder, documentMeta } from '../helpers/local-store-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-fs-');
const DIST_ATOMIC = path.resolve(import.meta.dirname, '../../dist/local/atomic-write.js');
const sha = (data: string) => createHash('sha256').update(data).digest('hex');

async function storeWithDocument(settleSeconds = 0) {
  const root = tempDir();
  const store = new FsLocalStore({ root, settleSeconds });
  const entity = await store.ensureEntityFolder(acme, 'https://app.example/x');
  const doc = await createDocumentFolder(store, entity, documentMeta());
  return { root, store, doc, abs: (rel: string) => path.join(root, rel) };
}

describe('atomic writes', () => {
  it('a process killed between write and rename leaves the previous content intact', () => {
    expect(existsSync(DIST_ATOMIC), 'run `npm run build` first').toBe(true);
    const root = tempDir();
    const target = path.join(root, 'notes.txt');
    writeFileSync(target, 'previous content');
    const script = `
      import { writeFileAtomic } from ${JSON.stringify(pathToFileURL(DIST_ATOMIC).href)};
      await writeFileAtomic(${JSON.stringify(root)}, ${JSON.stringify(target)},
        'new content '.repeat(100000),
        { beforeRename: () => process.kill(process.pid, 'SIGKILL') });
      console.log('renamed');`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).not.toContain('renamed');
    expect(readFileSync(target, 'utf8')).toBe('previous content');
    expect(readdirSync(root).sort()).toEqual(['.docsync', 'notes.txt']);
    const [leftover] = readdirSync(path.join(root, '.docsync/tmp'));
    expect(statSync(path.join(root, '.docsync/tmp', leftover!)).size).toBe(1_200_000);
  });

  it('a failure before the rename leaves no partial file under the real name', async () => {
    const root = tempDir();
    const target = path.join(root, 'a.txt');
    await expect(
      writeFileAtomic(root, target, 'x', {
        beforeRename: () => {
          throw new Error('stopped before rename');
        },
      }),
    ).rejects.toThrow('stopped before rename');
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(path.join(root, '.docsync/tmp'))).toEqual([]);
  });
});

describe('scanning', () => {
  it("never takes the trash's note on a service copy for a file of the document", async () => {
    // What a crash between a trash restore's move and its clean-up leaves in the folder.
    const { store, doc, abs } = await storeWithDocument();
    writeFileSync(abs(`${doc}/.docsync-service-copy.json`), '{"deletedInService":true}');
    writeFileSync(abs(`${doc}/a.pdf`), 'AAAA');
    const [scanned] = (await store.scanEntity(acme)).documents;
    expect(scanned!.files.map((f) => f.name)).toEqual(['a.pdf']);
  });

  it('hashes a file only when its size or mtime differ from the base', async () => {
    const { store, doc, abs } = await storeWithDocument();
    const file = abs(`${doc}/a.pdf`);
    writeFileSync(file, 'AAAA');
    const mtime = new Date('2024-01-01T00:00:00Z');
    utimesSync(file, mtime, mtime);
    const first = (await store.scanEntity(acme)).documents[0]!.files[0]!;
    expect(first.sha256).toBe(sha('AAAA'));
    const base = [
      {
        id: '1075468',
        attachments: [
          {
            id: 'UA1',
            kind: 'user' as const,
            file: 'a.pdf',
            sha256: first.sha256,
            size: first.size,
            mtimeMs: first.mtimeMs,
          },
        ],
      },
    ];
    // Same size, same mtime, other bytes: a scan that read the file would see the change.
    writeFileSync(file, 'BBBB');
    utimesSync(file, mtime, mtime);
    expect((await store.scanEntity(acme, base)).documents[0]!.files[0]!.sha256).toBe(sha('AAAA'));
    utimesSync(file, new Date(), new Date());
    expect((await store.scanEntity(acme, base)).documents[0]!.files[0]!.sha256).toBe(sha('BBBB'));
  });

  it('does not show a file that is still being written', async () => {
    const { store, doc, abs } = await storeWithDocument(30);
    writeFileSync(abs(`${doc}/new.pdf`), 'half a file');
    writeFileSync(abs(`${doc}/known.pdf`), 'changed now');
    const base = [
      {
        id: '1075468',
        attachments: [
          {
            id: 'UA1',
            kind: 'user' as const,
            file: 'known.pdf',
            sha256: 'agreed',
            size: 3,
            mtimeMs: 1,
          },
        ],
      },
    ];
    const files = (await store.scanEntity(acme, base)).documents[0]!.files;
    expect(files).toEqual([{ name: 'known.pdf', size: 3, mtimeMs: 1, sha256: 'agreed' }]);
  });

  it('reports symlinks, special files and folders inside a document folder, never following them', async () => {
    const { store, doc, abs } = await storeWithDocument();
    const outside = tempDir();
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    symlinkSync(path.join(outside, 'secret.txt'), abs(`${doc}/link.txt`));
    symlinkSync(outside, abs(`${doc}/linked folder`));
    execFileSync('mkfifo', [abs(`${doc}/pipe`)]);
    mkdirSync(abs(`${doc}/nested`));
    writeFileSync(abs(`${doc}/real.pdf`), 'r');
    const snapshot = await store.scanEntity(acme);
    expect(snapshot.documents[0]!.files.map((f) => f.name)).toEqual(['real.pdf']);
    const link = 'a symbolic link; docsync does not follow links: move the real file here';
    expect(snapshot.skipped).toEqual([
      { path: `${doc}/link.txt`, reason: link },
      { path: `${doc}/linked folder`, reason: link },
      // A folder in a document is said too (issue 27): a document is flat.
      {
        path: `${doc}/nested`,
        reason:
          'a folder inside a document folder; a document holds files, not folders: move its files up into the document folder (or zip the folder)',
      },
      {
        path: `${doc}/pipe`,
        reason:
          'a named pipe, not a file; docsync syncs only regular files: put the file itself here',
      },
    ]);
  });

  it('reports a name that is not UTF-8, escaped, instead of failing or dropping it', async () => {
    const { root, store, doc, abs } = await storeWithDocument();
    const bytes = (rel: string, name: number[]) =>
      Buffer.concat([Buffer.from(`${root}/${rel}/`), Buffer.from(name)]);
    // "caf\xe9.pdf": Latin-1, as an old program or another system writes it.
    writeFileSync(bytes(doc, [0x63, 0x61, 0x66, 0xe9, 0x2e, 0x70, 0x64, 0x66]), 'x');
    writeFileSync(abs(`${doc}/\ufffd real replacement character.pdf`), 'fine');
    const entity = path.posix.dirname(doc);
    mkdirSync(bytes(entity, [0x4d, 0xff, 0x6e]));
    writeFileSync(Buffer.concat([bytes(entity, [0x4d, 0xff, 0x6e]), Buffer.from('/a.pdf')]), 'a');

    const snapshot = await store.scanEntity(acme);
    const notUtf8 =
      'a name that is not valid UTF-8 (made on another system or by an old program); rename it and docsync syncs it';
    expect(snapshot.skipped).toEqual([
      { path: `${doc}/caf\\xe9.pdf`, reason: notUtf8 },
      { path: `${entity}/M\\xffn`, reason: notUtf8 },
    ]);
    const [document, held] = snapshot.documents;
    // A folder that cannot be opened may be a known document: held, never read as deleted.
    expect(held).toEqual({
      folder: `${entity}/M\ufffdn`,
      meta: null,
      metaError: `not synced: ${notUtf8}`,
      files: [],
    });
    expect(document!.files.map((f) => f.name)).toEqual(['\ufffd real replacement character.pdf']);
  });

  it('counts the files it did not take because they are still changing', async () => {
    const { store, doc, abs } = await storeWithDocument(30);
    writeFileSync(abs(`${doc}/new.pdf`), 'half a file');
    writeFileSync(abs(`${doc}/known.pdf`), 'changed now');
    const hint = {
      id: '1075468',
      attachments: [
        { id: 'UA1', kind: 'user' as const, file: 'known.pdf', sha256: 'a', size: 3, mtimeMs: 1 },
      ],
    };
    expect((await store.scanEntity(acme, [hint])).unsettled).toBe(2);
    const settled = new FsLocalStore({
      root: path.dirname(path.dirname(abs(doc))),
      settleSeconds: 0,
    });
    expect((await settled.scanEntity(acme, [hint])).unsettled).toBe(0);
  });

  it('reports entity folders that are links, leaves them out of the listing and never follows them', async () => {
    const { root, store, doc, abs } = await storeWithDocument();
    const entity = path.posix.dirname(doc);
    const moved = path.join(tempDir(), 'Acme moved away');
    renameSync(abs(entity), moved);
    symlinkSync(moved, abs(entity));
    symlinkSync(moved, path.join(root, 'Trusts'));
    mkdirSync(path.join(root, 'Companies/Other Pty Ltd'));
    symlinkSync(moved, path.join(root, 'Companies/Linked Pty Ltd'));

    expect((await store.listEntityFolders()).map((f) => f.folder)).toEqual([
      'Companies/Other Pty Ltd',
    ]);
    const link = 'a symbolic link; docsync does not follow links: move the real folder here';
    expect(await store.skippedEntityFolders()).toEqual([
      { path: entity, reason: link },
      { path: 'Companies/Linked Pty Ltd', reason: link },
      { path: 'Trusts', reason: link },
    ]);
    const snapshot = await store.scanEntity(acme, [], entity);
    expect(snapshot).toEqual({
      owner: acme,
      folder: null,
      documents: [],
      skipped: [{ path: entity, reason: link }],
      unsettled: 0,
    });
  });
});

describe('path guard', () => {
  it('refuses to write through a symlinked folder that points outside the root', async () => {
    const { store, doc, abs } = await storeWithDocument();
    const outside = tempDir();
    symlinkSync(outside, abs(`${doc}/../Escape`));
    const escaped = `${path.posix.dirname(doc)}/Escape`;
    await expect(store.placeFile(escaped, 'a.pdf', 'x')).rejects.toBeInstanceOf(PathEscapeError);
    await expect(
      store.restoreSystemAttachment(escaped, 'b.pdf', 'x', { kind: 'absent' }),
    ).rejects.toBeInstanceOf(PathEscapeError);
    expect(readdirSync(outside)).toEqual([]);
  });
});
