/**
 * The scan reads the same snapshot through synchronous calls (the server's own disk) and through
 * the thread pool (a network share, issue 16): the mode changes how it waits, never what it sees.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesystemKind } from '../../src/local/filesystem-kind.js';
import { asyncFsCalls, type FsCalls, syncFsCalls } from '../../src/local/fs-calls.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { MemoryMetaFileCache } from '../../src/local/meta-file-cache.js';
import { scanEntityFolder } from '../../src/local/scan.js';
import { acme, createDocumentFolder, documentMeta } from '../helpers/local-store-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-scan-');

describe('scanning through sync and async filesystem calls', () => {
  it('sees the same documents, files, skipped entries and unsettled files either way', async () => {
    const root = tempDir();
    const store = new FsLocalStore({ root, settleSeconds: 60 });
    await store.writeMarker();
    const entity = await store.ensureEntityFolder(acme, 'https://app.example/c');
    const doc = await createDocumentFolder(store, entity, documentMeta());
    const abs = (rel: string) => path.join(root, ...rel.split('/'));
    writeFileSync(abs(`${doc}/settled.pdf`), 'old enough');
    writeFileSync(abs(`${doc}/fresh.pdf`), 'just written'); // inside the settle time
    symlinkSync('/etc/passwd', abs(`${doc}/a link.pdf`));
    const latin1 = Buffer.concat([
      Buffer.from(`${abs(doc)}/caf`),
      Buffer.from([0xe9]),
      Buffer.from('.pdf'),
    ]);
    writeFileSync(latin1, 'not utf-8');
    mkdirSync(abs(`${entity}/New folder`));
    writeFileSync(abs(`${entity}/New folder/draft.docx`), 'draft');

    const scan = (fs: FsCalls) =>
      scanEntityFolder(
        {
          root,
          ignore: [],
          settleMs: 60_000,
          now: Date.now,
          metaCache: new MemoryMetaFileCache(),
          fs,
        },
        { kind: 'company', id: acme.id },
        entity,
        [],
      );
    const sync = await scan(syncFsCalls);
    const async = await scan(asyncFsCalls);
    expect(async).toEqual(sync);
    expect(sync.documents.map((d) => d.folder).sort()).toEqual(
      [doc, `${entity}/New folder`].sort(),
    );
    expect(sync.skipped.map((s) => s.path)).toHaveLength(2); // the link and the name not UTF-8
    expect(sync.unsettled).toBeGreaterThanOrEqual(1);
  });

  it('tells the server’s own disk from a network share by statfs', async () => {
    const kind = await filesystemKind(tempDir());
    expect(kind?.network).toBe(false);
    expect(await filesystemKind('/no/such/root')).toBeNull();
  });
});
