/** What only a real folder can show: crashes mid-write, hashing by stat, settling, symlinks. */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
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

  it('skips symlinks and nested folders inside a document folder', async () => {
    const { store, doc, abs } = await storeWithDocument();
    const outside = tempDir();
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    symlinkSync(path.join(outside, 'secret.txt'), abs(`${doc}/link.txt`));
    mkdirSync(abs(`${doc}/nested`));
    writeFileSync(abs(`${doc}/real.pdf`), 'r');
    const files = (await store.scanEntity(acme)).documents[0]!.files;
    expect(files.map((f) => f.name)).toEqual(['real.pdf']);
  });
});

describe('path guard', () => {
  it('refuses to write through a symlinked folder that points outside the root', async () => {
    const { store, doc, abs } = await storeWithDocument();
    const outside = tempDir();
    symlinkSync(outside, abs(`${doc}/../Escape`));
    const escaped = `${path.posix.dirname(doc)}/Escape`;
    await expect(store.placeFile(escaped, 'a.pdf', 'x')).rejects.toBeInstanceOf(PathEscapeError);
    await expect(store.writeFileAtomic(`${escaped}/b.pdf`, 'x')).rejects.toBeInstanceOf(
      PathEscapeError,
    );
    expect(readdirSync(outside)).toEqual([]);
  });
});
