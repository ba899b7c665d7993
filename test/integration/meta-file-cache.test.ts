/**
 * The `.document.json` cache (src/local/meta-file-cache.ts): one contract for the in-memory and
 * the SQLite adapter, then what a user of a real folder notices: an edit is always seen, and a
 * quiet folder is scanned without reading its metadata, even by a fresh process.
 */
import { readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import {
  type FileStamp,
  MemoryMetaFileCache,
  type MetaFileCache,
} from '../../src/local/meta-file-cache.js';
import { acme, createDocumentFolder, documentMeta } from '../helpers/local-store-harness.js';
import { useStateStore } from '../helpers/state-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const state = useStateStore();
const tempDir = useTempDir('docsync-meta-cache-');
const stamp = (s: string) => s as FileStamp;

const adapters: [string, () => MetaFileCache][] = [
  ['in memory', () => new MemoryMetaFileCache()],
  ['in SQLite', () => state.open().metaFiles],
];

describe.each(adapters)('the meta cache %s', (_name, open) => {
  it('gives back what each folder held, under the stamp it was given', () => {
    const cache = open();
    cache.put('Acme/doc', stamp('10:1:1:7'), documentMeta());
    cache.put('Acme/other', stamp('3:1:1:9'), documentMeta({ id: '2' }));
    expect(cache.entriesUnder('Acme')).toEqual(
      new Map([
        ['Acme/doc', { stamp: '10:1:1:7', meta: documentMeta() }],
        ['Acme/other', { stamp: '3:1:1:9', meta: documentMeta({ id: '2' }) }],
      ]),
    );
    cache.put('Acme/doc', stamp('11:2:2:8'), documentMeta({ status: 'RECEIVED' }));
    const replaced = cache.entriesUnder('Acme').get('Acme/doc');
    expect(replaced?.stamp).toBe('11:2:2:8');
    expect(replaced?.meta.status).toBe('RECEIVED');
  });

  it('keeps each entity’s folders apart, and forgets only the folders it is told', () => {
    const cache = open();
    const s = stamp('1:1:1:1');
    for (const folder of ['Acme/a', 'Acme/b', 'Acme Pty/a', 'Acme.old/a', 'Acme0/a'])
      cache.put(folder, s, documentMeta());
    expect([...cache.entriesUnder('Acme').keys()]).toEqual(['Acme/a', 'Acme/b']);
    cache.forget(['Acme/a']);
    expect([...cache.entriesUnder('Acme').keys()]).toEqual(['Acme/b']);
    for (const kept of ['Acme Pty', 'Acme.old', 'Acme0'])
      expect(cache.entriesUnder(kept).size, kept).toBe(1);
  });

  it('answers the same after a read-ahead, with what was put and forgotten since', () => {
    const cache = open();
    const s = stamp('1:1:1:1');
    for (const folder of ['Acme/a', 'Acme/b', 'Acme Pty/a', 'Beta/a', 'Gamma/a'])
      cache.put(folder, s, documentMeta());
    cache.readAhead(['Acme', 'Acme Pty', 'Empty']);
    cache.put('Acme/c', stamp('2:2:2:2'), documentMeta({ id: '3' }));
    cache.forget(['Acme/a']);
    // A scan of the last batch may still be running when the next one is read.
    cache.readAhead(['Beta']);
    cache.put('Beta/b', s, documentMeta());
    expect([...cache.entriesUnder('Acme')]).toEqual([
      ['Acme/b', { stamp: s, meta: documentMeta() }],
      ['Acme/c', { stamp: '2:2:2:2', meta: documentMeta({ id: '3' }) }],
    ]);
    expect([...cache.entriesUnder('Acme Pty').keys()]).toEqual(['Acme Pty/a']);
    expect(cache.entriesUnder('Empty').size).toBe(0);
    expect([...cache.entriesUnder('Beta').keys()]).toEqual(['Beta/a', 'Beta/b']);
    expect([...cache.entriesUnder('Gamma').keys()]).toEqual(['Gamma/a']);
    // Asked once, a folder is read from the store again: nothing stale is kept for it.
    cache.put('Acme/d', s, documentMeta());
    expect([...cache.entriesUnder('Acme').keys()]).toEqual(['Acme/b', 'Acme/c', 'Acme/d']);
  });
});

/**
 * Our own port, counted: what the scan found in the cache, and how many `.document.json` files
 * it read (the scan remembers each file it had to read and parse).
 */
function counted(inner: MetaFileCache) {
  const counts = { cached: 0, reads: 0 };
  const cache: MetaFileCache = {
    entriesUnder: (entity) => {
      const entries = inner.entriesUnder(entity);
      counts.cached += entries.size;
      return entries;
    },
    readAhead: (entities) => inner.readAhead(entities),
    put: (folder, s, meta) => {
      counts.reads++;
      inner.put(folder, s, meta);
    },
    forget: (folders) => inner.forget(folders),
  };
  return { cache, counts };
}

async function folderWithDocuments(root: string, metaCache: MetaFileCache, n: number) {
  const store = new FsLocalStore({ root, settleSeconds: 0, metaCache });
  const entity = await store.ensureEntityFolder(acme, 'https://app.example/x');
  const folders: string[] = [];
  for (let i = 0; i < n; i++) {
    const meta = documentMeta({ id: `10${i}`, name: `Minutes ${i}` });
    folders.push(await createDocumentFolder(store, entity, meta));
  }
  return { store, folders };
}

/** Two documents scanned with the SQLite cache, and the folders it holds rows for. */
async function storeCachingInSqlite() {
  const root = tempDir();
  const opened = state.open();
  const { store, folders } = await folderWithDocuments(root, opened.metaFiles, 2);
  const cachedFolders = () =>
    opened.db.prepare('SELECT folder FROM meta_files ORDER BY folder').pluck().all();
  return { root, store, folders, cachedFolders };
}

describe('scanning with the meta cache', () => {
  it('reads no .document.json it wrote itself, even in a fresh process on the same state', async () => {
    const root = tempDir();
    const { folders } = await folderWithDocuments(root, state.open().metaFiles, 3);
    const { cache, counts } = counted(state.open().metaFiles); // as after a restart
    const rescanned = new FsLocalStore({ root, settleSeconds: 0, metaCache: cache });
    const snapshot = await rescanned.scanEntity(acme);
    expect(snapshot.documents.map((d) => d.meta?.id)).toEqual(['100', '101', '102']);
    expect(counts).toEqual({ cached: folders.length, reads: 0 });
  });

  it('sees a status edit that keeps the size and puts the mtime back', async () => {
    const root = tempDir();
    const { store, folders } = await folderWithDocuments(root, new MemoryMetaFileCache(), 1);
    const file = path.join(root, folders[0]!, '.document.json');
    const fixed = new Date('2024-01-01T00:00:00Z'); // whole seconds: utimes can restore it exactly
    utimesSync(file, fixed, fixed);
    expect((await store.scanEntity(acme)).documents[0]!.meta?.status).toBe('DOCUMENT PREPARED');
    const size = statSync(file).size;
    // Same length: "DOCUMENT PREPARED" → "DOCUMENT RECEIVED"; mtime put back as `cp -p` would.
    writeFileSync(file, readFileSync(file, 'utf8').replace('PREPARED', 'RECEIVED'));
    utimesSync(file, fixed, fixed);
    expect(statSync(file).size).toBe(size);
    expect(statSync(file).mtimeMs).toBe(fixed.getTime());
    const [doc] = (await store.scanEntity(acme)).documents;
    expect(doc!.meta?.status).toBe('DOCUMENT RECEIVED');
  });

  it('reports a broken .document.json after a good one was cached, not the cached one', async () => {
    const root = tempDir();
    const { store, folders } = await folderWithDocuments(root, new MemoryMetaFileCache(), 1);
    writeFileSync(path.join(root, folders[0]!, '.document.json'), '{ "id": ');
    const [doc] = (await store.scanEntity(acme)).documents;
    expect(doc!.meta).toBeNull();
    expect(doc!.metaError).toMatch(/not JSON/);
  });

  it('forgets a folder the user removed, so the cache does not grow without end', async () => {
    const { store, folders, cachedFolders } = await storeCachingInSqlite();
    expect(cachedFolders()).toEqual(folders);
    await store.trash(folders[0]!, await store.lookAt(folders[0]!));
    await store.scanEntity(acme);
    expect(cachedFolders()).toEqual([folders[1]]);
  });

  it('forgets what it remembered under an entity folder the user renamed', async () => {
    const { root, store, folders, cachedFolders } = await storeCachingInSqlite();
    const entity = path.posix.dirname(folders[0]!);
    renameSync(path.join(root, entity), path.join(root, `${entity} (renamed)`));
    const snapshot = await store.scanEntity(acme, [], entity);
    expect(snapshot.folder).toBe(`${entity} (renamed)`);
    expect(snapshot.documents).toHaveLength(2);
    expect(cachedFolders()).toEqual(folders.map((f) => f.replace(entity, `${entity} (renamed)`)));
  });
});
