/**
 * The folder scans beside the watcher (issue 16) on a real temp folder: a change the OS never
 * reported (another machine's write on a network share) is found by the next pass, and what the
 * entity's own sync wrote is not reported again. A folder the pass has no fingerprint of (every
 * one at the start) is compared with the agreed state instead (issue 28), and a pass over many
 * folders on the server's own disk lets a request be answered before it ends (issue 28).
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScanPass } from '../../src/daemon/scan-pass.js';
import type { OwnerRef } from '../../src/domain/types.js';
import { EntityLocks } from '../../src/engine/entity-locks.js';
import { asyncFsCalls, syncFsCalls } from '../../src/local/fs-calls.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import {
  acme,
  createDocumentFolder,
  documentMeta,
  smithTrust,
} from '../helpers/local-store-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-scan-pass-');

describe.each([
  ['sync calls (the server’s own disk)', syncFsCalls],
  ['async calls (a network share)', asyncFsCalls],
])('ScanPass with %s', (_name, fs) => {
  it('reports an entity whose folder changed since the last pass, once, and not after its own sync', async () => {
    const root = tempDir();
    const store = new FsLocalStore({ root });
    await store.writeMarker();
    const company = await store.ensureEntityFolder(acme, 'https://app.example/c');
    const trust = await store.ensureEntityFolder(smithTrust, 'https://app.example/t');
    const doc = await createDocumentFolder(store, company, documentMeta());
    const acmeRef: OwnerRef = { kind: 'company', id: acme.id };
    const trustRef: OwnerRef = { kind: 'trust', id: smithTrust.id };
    let now = 1_000;
    const locks = new EntityLocks();
    const synced = new Map<string, number>();
    const reported: OwnerRef[] = [];
    const pass = new ScanPass({
      root,
      ignore: [],
      intervalMs: 60_000,
      entities: () => [
        { owner: acmeRef, folder: company },
        { owner: trustRef, folder: trust },
      ],
      fs: async () => fs,
      ifFree: (owner, look) => locks.runIfFree(owner, 'scan pass', look),
      syncedAt: (owner) => synced.get(owner.id) ?? 0,
      onChanged: (owner) => reported.push(owner),
      comparer: () => async () => false, // the folders hold what was agreed
      now: () => now,
      onError: (error) => {
        throw error;
      },
    });

    expect(await pass.pass()).toEqual([]); // the first pass compares: nothing to do
    writeFileSync(path.join(root, doc, 'from another machine.pdf'), 'written over SMB');
    now += 60_000;
    expect(await pass.pass()).toEqual([acmeRef]);
    now += 60_000;
    expect(await pass.pass()).toEqual([]); // unchanged since

    // The sync that follows writes into the folder: its own change is not reported again.
    const file = path.join(root, doc, 'from another machine.pdf');
    utimesSync(file, new Date(2020, 1, 1), new Date(2020, 1, 1));
    now += 1_000;
    synced.set(acme.id, now);
    now += 60_000;
    expect(await pass.pass()).toEqual([]);
    expect(reported).toEqual([acmeRef]);

    // A folder changed while its entity is busy (a sync holds its lock): the pass leaves it to
    // that sync; it is reported by the first pass after, unless the sync went after the change.
    const sync = await locks.acquire(acmeRef, 'sync');
    writeFileSync(path.join(root, doc, 'during the sync.pdf'), 'written while syncing');
    now += 60_000;
    expect(await pass.pass()).toEqual([]);
    sync.release();
    now += 60_000;
    expect(await pass.pass()).toEqual([acmeRef]);
  });

  it('compares a folder it has no fingerprint of with the agreed state, and reports it at once when it holds work', async () => {
    const root = tempDir();
    const store = new FsLocalStore({ root });
    await store.writeMarker();
    const company = await store.ensureEntityFolder(acme, 'https://app.example/c');
    const trust = await store.ensureEntityFolder(smithTrust, 'https://app.example/t');
    const acmeRef: OwnerRef = { kind: 'company', id: acme.id };
    const trustRef: OwnerRef = { kind: 'trust', id: smithTrust.id };
    const locks = new EntityLocks();
    // What the agreed state says of each folder: the company's holds files a stop left behind.
    const work = new Map([[acme.id, true]]);
    const compared: string[] = [];
    let comparers = 0;
    const reported: OwnerRef[] = [];
    const pass = new ScanPass({
      root,
      ignore: [],
      intervalMs: 60_000,
      entities: () => [
        { owner: acmeRef, folder: company },
        { owner: trustRef, folder: trust },
      ],
      fs: async () => fs,
      ifFree: (owner, look) => locks.runIfFree(owner, 'scan pass', look),
      syncedAt: () => 0,
      onChanged: (owner) => reported.push(owner),
      comparer: () => {
        comparers += 1;
        return async (owner) => {
          compared.push(owner.id);
          return work.get(owner.id) ?? false;
        };
      },
      now: () => 1_000,
      onError: (error) => {
        throw error;
      },
    });

    // The trust is in a sync as the daemon starts: its sync reads the folder, the pass skips it.
    const sync = await locks.acquire(trustRef, 'sync');
    expect(await pass.pass()).toEqual([acmeRef]);
    expect(compared).toEqual([acme.id]);
    sync.release();
    // The next pass compares the folder it skipped, and only that one; nothing moved since.
    work.set(acme.id, false);
    expect(await pass.pass()).toEqual([]);
    expect(compared).toEqual([acme.id, smithTrust.id]);
    expect(await pass.pass()).toEqual([]);
    expect(compared).toHaveLength(2);
    // What every comparison needs is read once per pass that compares, not once per folder.
    expect(comparers).toBe(2);
    expect(reported).toEqual([acmeRef]);
  });
});

describe('ScanPass on the server’s own disk (synchronous calls)', () => {
  /** The CPU a synchronous look at one entity folder takes on a busy disk. */
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it('answers a request made while a pass over many folders runs, before the pass ends', async () => {
    const root = tempDir();
    const ENTITIES = 200;
    const entities = Array.from({ length: ENTITIES }, (_, i) => {
      const folder = `Companies/Company ${i}`;
      mkdirSync(path.join(root, folder, `Document ${i}`), { recursive: true });
      return { owner: { kind: 'company', id: String(i) } as OwnerRef, folder };
    });
    const locks = new EntityLocks();
    let looked = 0;
    const pass = new ScanPass({
      root,
      ignore: [],
      intervalMs: 60_000,
      entities: () => entities,
      fs: async () => syncFsCalls,
      ifFree: (owner, look) => {
        looked += 1;
        busy(2); // 200 folders: 0.4 s of the loop, which a webhook must not wait for
        return locks.runIfFree(owner, 'scan pass', look);
      },
      syncedAt: () => 0,
      onChanged: () => {},
      comparer: () => async () => false,
      now: () => 1_000,
      onError: (error) => {
        throw error;
      },
    });
    // What stands for the webhook receiver: a server in the same process as the pass.
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const passing = pass.pass();
      let passEnded = false;
      void passing.then(() => {
        passEnded = true;
      });
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      expect(await answer.text()).toBe('ok');
      // Answered while the pass was still walking: it gave the loop turns as it went.
      expect(passEnded).toBe(false);
      expect(looked).toBeLessThan(ENTITIES);
      expect(await passing).toEqual([]);
      expect(looked).toBe(ENTITIES);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
