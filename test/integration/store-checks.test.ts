/**
 * `docsync check` on the folder, against real temp folders: whether the store is there and is
 * the one that was synced, and whether the inotify limit covers one watch per folder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkStore, countWatchedFolders } from '../../src/local/store-checks.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

/** A synced-looking store: marker, state folder, two entities with documents. */
function store(): string {
  const root = path.join(tempDir(), 'store');
  for (const folder of [
    '.docsync/trash/2026-01-01',
    'Companies/Acme (123 456 789)/2024-06-30 Statement [1]',
    'Companies/Acme (123 456 789)/2024-07-01 Minutes [2]',
    'Trusts/Smith Trust/2024-06-30 Deed [3]',
    'Trusts/Smith Trust/node_modules',
  ]) {
    mkdirSync(path.join(root, folder), { recursive: true });
  }
  writeFileSync(path.join(root, '.docsync-root'), '');
  return root;
}

function limitFile(limit: number): string {
  const file = path.join(tempDir(), 'max_user_watches');
  writeFileSync(file, `${limit}\n`);
  return file;
}

const input = (root: string, overrides: Partial<Parameters<typeof checkStore>[0]> = {}) => ({
  root,
  ignore: ['node_modules'],
  initialSyncDone: true,
  baseUrl: 'https://api.example.test',
  scanIntervalSeconds: 300,
  platform: 'linux' as const,
  ...overrides,
});

describe('store checks', () => {
  it('counts the folders the watcher would watch: not .docsync/, not ignored ones', async () => {
    // root, Companies, Acme, 2 documents, Trusts, Smith, 1 document.
    expect(await countWatchedFolders(store(), ['node_modules'])).toBe(8);
  });

  it('passes a synced store on a local disk with watches to spare', async () => {
    const lines = await checkStore(input(store(), { maxUserWatchesFile: limitFile(8192) }));
    expect(lines.map((l) => [l.topic, l.result])).toEqual([
      ['store folder', 'ok'],
      ['store marker', 'ok'],
      ['filesystem', 'ok'],
      ['inotify watches', 'ok'],
    ]);
    expect(lines[3]!.message).toBe('the store needs 8 of the 8192 allowed (one per folder)');
  });

  it('warns, with the sysctl to run, when the folders outnumber or crowd the limit', async () => {
    const root = store();
    const [, , , over] = await checkStore(input(root, { maxUserWatchesFile: limitFile(5) }));
    expect(over).toMatchObject({
      result: 'warn',
      message:
        'the store has 8 folders to watch but the limit is 5: the watcher will fall back to scanning',
      hint: expect.stringContaining('sudo sysctl fs.inotify.max_user_watches=524288'),
      data: { limit: 5, needed: 8 },
    });
    const [, , , crowded] = await checkStore(input(root, { maxUserWatchesFile: limitFile(9) }));
    expect(crowded?.result).toBe('warn');
    const [, , , mac] = await checkStore(input(root, { platform: 'darwin' }));
    expect(mac).toMatchObject({ result: 'ok', topic: 'folder watches' });
  });

  it('fails a store that was synced but is gone or lost its marker (an unmounted share)', async () => {
    const gone = path.join(tempDir(), 'unmounted');
    const [missing] = await checkStore(input(gone));
    expect(missing).toMatchObject({
      result: 'fail',
      message: expect.stringContaining('was synced before'),
    });
    const [fresh] = await checkStore(input(gone, { initialSyncDone: false }));
    expect(fresh).toMatchObject({
      result: 'ok',
      message: expect.stringContaining('the first run makes it'),
    });

    const empty = path.join(tempDir(), 'empty');
    mkdirSync(empty);
    const [, marker] = await checkStore(input(empty));
    expect(marker).toMatchObject({
      result: 'fail',
      message: expect.stringContaining('refuse to run (exit 2)'),
    });
    const [, first] = await checkStore(input(empty, { initialSyncDone: null }));
    expect(first).toMatchObject({
      result: 'ok',
      message: '.docsync-root is not there yet; the first run writes it',
    });
  });

  it('fails a store root that is a file', async () => {
    const file = path.join(tempDir(), 'not-a-folder');
    writeFileSync(file, 'x');
    expect(await checkStore(input(file))).toEqual([
      expect.objectContaining({
        result: 'fail',
        message: `store.root ${file} is a file, not a folder`,
      }),
    ]);
  });
});
