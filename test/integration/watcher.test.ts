/**
 * The real folder watch on a real temp folder, on a virtual clock: the OS's events and the
 * watcher's reads of the folder are real, its timers (the settle waits, the scanning fallback's
 * interval, the look for a missing root) are fake and move only when the test moves them, after
 * everything the folder's changes set off has run (`ioIdle`). So a settle rule is asserted to the
 * millisecond, and a busy machine only makes the test wait longer for the I/O, never changes
 * what it sees.
 */
import { EventEmitter } from 'node:events';
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FolderTreeWatch } from '../../src/local/folder-tree-watch.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { type EntityTouch, FolderWatcher, type WatcherLog } from '../../src/local/watcher.js';
import {
  acme,
  createDocumentFolder,
  documentMeta,
  smithTrust,
} from '../helpers/local-store-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const SETTLE_MS = 400;
// In memory: the watch is the point, not the disk, which the other tests of a busy machine share.
const tempDir = useTempDir('docsync-watch-', { inMemory: true });
const watchers: FolderWatcher[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
});
afterEach(async () => {
  await Promise.all(watchers.splice(0).map((w) => w.close()));
  vi.useRealTimers();
});

// Taken before any test fakes the timers: waiting for I/O is real.
const realImmediate = globalThis.setImmediate;
/** Node's names of a file-system request that has not completed. */
const FS_REQUESTS = new Set(['FSReqCallback', 'FSReqPromise', 'FileHandleCloseReq', 'CloseReq']);

/**
 * Waits until everything the folder's changes set off has run: the OS's events read (each turn
 * of the loop reads what the kernel queued), the watch's lstats, the watcher's fingerprints and
 * reads, several turns in a row with no file-system request pending. Bounded in real time.
 */
async function ioIdle(boundMs = 30_000): Promise<void> {
  const until = performance.now() + boundMs;
  for (let quiet = 0; quiet < 3; ) {
    await new Promise((resolve) => realImmediate(resolve));
    if (performance.now() > until)
      throw new Error(`file-system requests still pending after ${boundMs} ms`);
    const pending = process.getActiveResourcesInfo().some((r) => FS_REQUESTS.has(r));
    quiet = pending ? 0 : quiet + 1;
  }
}

/** Moves the virtual clock on by `ms`, a little at a time, letting the I/O of each step finish. */
async function advance(ms: number, step = SETTLE_MS / 4): Promise<void> {
  await ioIdle();
  for (let done = 0; done < ms; done += step) {
    await vi.advanceTimersByTimeAsync(Math.min(step, ms - done));
    await ioIdle();
  }
}

async function setUp(options: { pollIntervalMs?: number; simulateLimit?: boolean } = {}) {
  const root = tempDir();
  const store = new FsLocalStore({ root, settleSeconds: SETTLE_MS / 1000 });
  await store.writeMarker();
  const entity = await store.ensureEntityFolder(acme, 'https://app.example/c');
  await store.ensureEntityFolder(smithTrust, 'https://app.example/t');
  const doc = await createDocumentFolder(store, entity, documentMeta());
  const touches: EntityTouch[] = [];
  const warnings: string[] = [];
  const log: WatcherLog = {
    warn: (_details, message) => warnings.push(message),
    error: (_details, message) => warnings.push(message),
  };
  const watcher = new FolderWatcher({
    root,
    settleMs: SETTLE_MS,
    pollIntervalMs: options.pollIntervalMs ?? 60_000,
    ownWrites: store.ownWrites,
    log,
    onTouch: (touch) => {
      touches.push(touch);
    },
    watchFactory: (dir, ignored) => {
      const source = new FolderTreeWatch(dir, ignored);
      void source.start();
      if (options.simulateLimit) {
        source.on('ready', () => {
          const error = Object.assign(
            new Error('ENOSPC: System limit for number of file watchers reached'),
            { code: 'ENOSPC' },
          );
          source.emit('error', error);
        });
      }
      return source;
    },
  });
  watchers.push(watcher);
  await watcher.start();
  const abs = (rel: string) => path.join(root, ...rel.split('/'));
  return { root, store, entity, doc, touches, warnings, watcher, abs };
}

/** Until nothing can still be pending: well past two settle times after the last change. */
const quiet = () => advance(SETTLE_MS * 4);

describe('FolderWatcher', () => {
  it('reports a file copied in slowly exactly once, one settle time after its last write', async () => {
    const { doc, touches, abs, entity } = await setUp();
    const file = abs(`${doc}/big scan.pdf`);
    const step = Math.round(SETTLE_MS / 3);
    for (let chunk = 0; chunk < 8; chunk += 1) {
      appendFileSync(file, Buffer.alloc(64 * 1024, chunk));
      await advance(step, step);
      expect(touches).toEqual([]);
    }
    // Every write pushed the wait back: the settle time counts from the last one.
    await advance(SETTLE_MS - step - 1, SETTLE_MS);
    expect(touches).toEqual([]);
    await advance(1);
    expect(touches).toHaveLength(1);
    await quiet();
    expect(touches).toEqual([
      {
        entityFolder: entity,
        documentFolder: doc,
        owner: { kind: 'company', id: acme.id },
        reason: 'changed',
      },
    ]);
  });

  it('reports 5,000 files dropped into one folder once, without a fingerprint per event', async () => {
    const { doc, touches, abs, entity } = await setUp();
    const rss = process.memoryUsage().rss;
    for (let i = 0; i < 5000; i += 1) writeFileSync(abs(`${doc}/scan ${i}.pdf`), `page ${i}`);
    // A fingerprint per event read the whole folder for every file: 25 million lstats and
    // gigabytes of fingerprints here; one at a time, coalesced, it settles like any other change.
    await ioIdle(60_000);
    await quiet();
    expect(touches.map((t) => [t.entityFolder, t.documentFolder])).toEqual([[entity, doc]]);
    expect(process.memoryUsage().rss - rss).toBeLessThan(500 * 1024 * 1024);
  }, 40_000);

  it('reports an editor save through a temp file and rename once, and never its lock files', async () => {
    const { doc, touches, abs } = await setUp();
    writeFileSync(abs(`${doc}/Minutes.docx`), 'v1');
    await quiet();
    touches.length = 0;
    // Word: lock file, write to a temp, swap names, drop the lock.
    writeFileSync(abs(`${doc}/~$Minutes.docx`), 'lock');
    writeFileSync(abs(`${doc}/~WRL0001.tmp`), 'v2 being written');
    renameSync(abs(`${doc}/Minutes.docx`), abs(`${doc}/~WRL0002.tmp`));
    renameSync(abs(`${doc}/~WRL0001.tmp`), abs(`${doc}/Minutes.docx`));
    rmSync(abs(`${doc}/~WRL0002.tmp`));
    rmSync(abs(`${doc}/~$Minutes.docx`));
    // vim: swap file, 4913 probe, backup~.
    writeFileSync(abs(`${doc}/.notes.txt.swp`), 'swap');
    writeFileSync(abs(`${doc}/4913`), '');
    rmSync(abs(`${doc}/4913`));
    writeFileSync(abs(`${doc}/notes.txt`), 'saved');
    rmSync(abs(`${doc}/.notes.txt.swp`));
    await quiet();
    expect(touches.map((t) => [t.documentFolder, t.reason])).toEqual([[doc, 'changed']]);
  });

  it('stays silent for ignored files only', async () => {
    const { doc, touches, abs, entity } = await setUp();
    for (const name of [
      '~$budget.xlsx',
      '.~lock.a.odt#',
      'a.swp',
      'x.swx',
      'y.tmp',
      'z~',
      '.#emacs',
      'Thumbs.db',
      'desktop.ini',
      '.DS_Store',
    ]) {
      writeFileSync(abs(`${doc}/${name}`), 'x');
    }
    writeFileSync(abs(`${entity}/Thumbs.db`), 'x');
    writeFileSync(abs('.docsync/tmp/partial.part'), 'x');
    await quiet();
    expect(touches).toEqual([]);
  });

  it('stays silent for the store’s own writes', async () => {
    const { store, doc, entity, touches } = await setUp();
    await store.placeFile(doc, 'Downloaded.pdf', 'remote bytes');
    await store.writeDocumentMeta(
      doc,
      documentMeta({ status: 'LODGED' }),
      await store.lookAt(`${doc}/.document.json`),
    );
    await createDocumentFolder(store, entity, documentMeta({ id: '2', name: 'Second' }));
    await store.ensureEntityFolder(
      { ...acme, raw: { ...acme.raw, updated: true } },
      'https://app.example/c2',
    );
    await store.renameFile(
      `${doc}/Downloaded.pdf`,
      'Downloaded (conflict 2024-01-01 0000).pdf',
      await store.lookAt(`${doc}/Downloaded.pdf`),
    );
    await store.restoreSystemAttachment(
      doc,
      'System.pdf',
      'original',
      await store.lookAt(`${doc}/System.pdf`),
    );
    await store.trash(doc, await store.lookAt(doc));
    await quiet();
    expect(touches).toEqual([]);
  });

  it('reports a user edit right after the store’s own write of the same file', async () => {
    const { store, doc, touches, abs } = await setUp();
    await store.writeDocumentMeta(doc, documentMeta(), await store.lookAt(`${doc}/.document.json`));
    await quiet();
    writeFileSync(
      abs(`${doc}/.document.json`),
      JSON.stringify({ ...documentMeta(), status: 'lodged' }),
    );
    await quiet();
    expect(touches.map((t) => t.documentFolder)).toEqual([doc]);
  });

  it('reports a new document folder made by a user, and one touch per changed folder', async () => {
    const { entity, touches, abs } = await setUp();
    mkdirSync(abs(`${entity}/2024-01-05 Trust deed`));
    writeFileSync(abs(`${entity}/2024-01-05 Trust deed/deed.pdf`), 'deed');
    mkdirSync(abs('Trusts/Smith Family Trust/2024-02-01 Minutes'));
    writeFileSync(abs('Trusts/Smith Family Trust/2024-02-01 Minutes/m.pdf'), 'minutes');
    await quiet();
    expect(touches.map((t) => t.documentFolder).sort()).toEqual([
      `${entity}/2024-01-05 Trust deed`,
      'Trusts/Smith Family Trust/2024-02-01 Minutes',
    ]);
  });

  it('falls back to periodic scans when the OS runs out of watches', async () => {
    const { touches, warnings, watcher } = await setUp({
      pollIntervalMs: 150,
      simulateLimit: true,
    });
    await ioIdle();
    expect(watcher.mode).toBe('scanning');
    expect(warnings.some((w) => w.startsWith('WATCH LIMIT REACHED'))).toBe(true);
    // Both entities at once, then again every interval: at 150, 300, 450 and 600 ms.
    expect(touches.filter((t) => t.reason === 'poll')).toHaveLength(2);
    await advance(600, 150);
    const polled = touches.filter((t) => t.reason === 'poll');
    expect(polled).toHaveLength(10);
    expect(new Set(polled.map((t) => t.entityFolder))).toEqual(
      new Set(['Companies/Acme Pty Ltd (123 456 789)', 'Trusts/Smith Family Trust']),
    );
    expect(polled.find((t) => t.entityFolder.startsWith('Trusts'))?.owner).toEqual({
      kind: 'trust',
      id: smithTrust.id,
    });
  });

  it('finishes starting when the OS runs out of watches before its first walk is done', async () => {
    const root = tempDir();
    const store = new FsLocalStore({ root });
    await store.writeMarker();
    await store.ensureEntityFolder(acme, 'https://app.example/c');
    const touches: EntityTouch[] = [];
    // A source closed during its walk never says 'ready': the daemon used to wait for it forever.
    const source = Object.assign(new EventEmitter(), { close: async () => undefined });
    const watcher = new FolderWatcher({
      root,
      onTouch: (touch) => {
        touches.push(touch);
      },
      log: { warn: () => undefined, error: () => undefined },
      watchFactory: () => {
        setImmediate(() =>
          source.emit('error', Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })),
        );
        return source;
      },
    });
    watchers.push(watcher);
    await watcher.start();
    expect(watcher.mode).toBe('scanning');
    await ioIdle();
    expect(touches.map((t) => [t.entityFolder, t.reason])).toEqual([
      ['Companies/Acme Pty Ltd (123 456 789)', 'poll'],
    ]);
  });

  it('hears a folder made after the start, and one moved to another entity at its new place', async () => {
    const { entity, doc, touches, abs } = await setUp();
    mkdirSync(abs(`${entity}/2024-03-01 Later`));
    await quiet();
    renameSync(abs(doc), abs('Trusts/Smith Family Trust/Moved here'));
    await quiet();
    touches.length = 0;
    writeFileSync(abs(`${entity}/2024-03-01 Later/later.pdf`), 'later');
    writeFileSync(abs('Trusts/Smith Family Trust/Moved here/moved.pdf'), 'moved');
    await quiet();
    expect(touches.map((t) => t.documentFolder).sort()).toEqual([
      `${entity}/2024-03-01 Later`,
      'Trusts/Smith Family Trust/Moved here',
    ]);
  });

  it('watches a root that the first sync creates after the start', async () => {
    const root = path.join(tempDir(), 'documents');
    const store = new FsLocalStore({ root, settleSeconds: SETTLE_MS / 1000 });
    const touches: EntityTouch[] = [];
    const watcher = new FolderWatcher({
      root,
      settleMs: SETTLE_MS,
      ownWrites: store.ownWrites,
      onTouch: (touch) => {
        touches.push(touch);
      },
    });
    watchers.push(watcher);
    await watcher.start();
    await store.writeMarker();
    const entity = await store.ensureEntityFolder(acme, 'https://app.example/c');
    await advance(1000); // a missing root is looked for every second
    mkdirSync(path.join(root, entity, '2024-05-01 New'));
    writeFileSync(path.join(root, entity, '2024-05-01 New', 'new.pdf'), 'new');
    await quiet();
    expect(watcher.mode).toBe('events');
    expect(touches.map((t) => t.documentFolder)).toEqual([`${entity}/2024-05-01 New`]);
  });

  it.runIf(process.platform === 'linux')(
    'holds one OS watch per folder and none per file',
    async () => {
      const before = inotifyWatches();
      const { root } = await setUp();
      const folders = countFolders(root);
      expect(inotifyWatches() - before).toBe(folders);
    },
  );

  it('starts in events mode and closes twice without error', async () => {
    const { watcher } = await setUp();
    expect(watcher.mode).toBe('events');
    await Promise.all([watcher.close(), watcher.close()]);
  });
});

/** inotify watches this process holds (Linux): one `inotify wd:` line per watch in fdinfo. */
function inotifyWatches(): number {
  let watches = 0;
  for (const fd of readdirSync('/proc/self/fdinfo')) {
    let info = '';
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      continue; // closed meanwhile
    }
    watches += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return watches;
}

/** The root and every folder below it, `.docsync/` (never watched) left out. */
function countFolders(root: string): number {
  let folders = 1;
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    const rel = path.relative(root, path.join(entry.parentPath, entry.name));
    if (entry.isDirectory() && !rel.startsWith('.docsync')) folders++;
  }
  return folders;
}
