/**
 * `.docsync/`, `.docsync/tmp/` and `.docsync/trash/` replaced by a symbolic link (or a file): docsync
 * refuses to write, move or sweep through them, says what is wrong and what to do, and leaves the
 * link's target untouched. Only a real folder can show this.
 */
import {
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalStoreError } from '../../src/domain/errors.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { acme, createDocumentFolder, documentMeta } from '../helpers/local-store-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-state-folders-');
const clock = new Date(2024, 5, 15, 12, 0);

async function storeWithDocument() {
  const root = tempDir();
  const store = new FsLocalStore({ root, settleSeconds: 0, now: () => clock });
  await store.writeMarker();
  const entity = await store.ensureEntityFolder(acme, 'https://app.example/x');
  const doc = await createDocumentFolder(store, entity, documentMeta());
  writeFileSync(path.join(root, doc, 'minutes.pdf'), 'signed minutes');
  const outside = tempDir();
  const abs = (rel: string) => path.join(root, rel);
  /** Replaces one of docsync's folders with a link to `outside`. */
  const link = (rel: string) => {
    rmSync(abs(rel), { recursive: true, force: true });
    symlinkSync(outside, abs(rel));
  };
  return { root, store, doc, outside, abs, link };
}

async function refusal(promise: Promise<unknown>): Promise<LocalStoreError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LocalStoreError);
  expect((error as LocalStoreError).code).toBe('UNSAFE_STATE_FOLDER');
  return error as LocalStoreError;
}

describe("docsync's own folders", () => {
  it('writes no file through a .docsync/tmp that is a link, and says what to do', async () => {
    const { store, doc, outside, abs, link } = await storeWithDocument();
    link('.docsync/tmp');
    const before = readdirSync(abs(doc)).sort();

    const error = await refusal(store.placeFile(doc, 'form.pdf', 'remote bytes'));
    expect(error.message).toContain(`${abs('.docsync/tmp')} is a symbolic link to ${outside}`);
    expect(error.message).toMatch(/remove it .*docsync creates the folder again/);
    await refusal(
      store.placeFile(doc, 'deed.pdf', {
        fill: async (temp: string) => {
          writeFileSync(temp, 'downloaded');
          return { sha256: 'x' };
        },
      }),
    );
    await refusal(
      store.writeDocumentMeta(
        doc,
        documentMeta({ status: 'SENT TO CLIENT' }),
        await store.lookAt(`${doc}/.document.json`),
      ),
    );
    await refusal(
      store.restoreSystemAttachment(
        doc,
        'minutes.pdf',
        'replaced',
        await store.lookAt(`${doc}/minutes.pdf`),
      ),
    );
    await refusal(createDocumentFolder(store, path.posix.dirname(doc), documentMeta({ id: '9' })));

    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(abs(doc)).sort()).toEqual(before);
    expect(readFileSync(abs(`${doc}/minutes.pdf`), 'utf8')).toBe('signed minutes');

    // What the message says to do works: without the link, docsync makes the folder again.
    rmSync(abs('.docsync/tmp'));
    expect((await store.placeFile(doc, 'form.pdf', 'remote bytes')).name).toBe('form.pdf');
  });

  it('moves nothing into a .docsync/trash, or a day folder in it, that is a link', async () => {
    const { store, doc, outside, abs, link } = await storeWithDocument();
    link('.docsync/trash');
    const error = await refusal(
      store.trash(`${doc}/minutes.pdf`, await store.lookAt(`${doc}/minutes.pdf`)),
    );
    expect(error.message).toContain(`${abs('.docsync/trash')} is a symbolic link to ${outside}`);
    await refusal(
      store.saveToTrash(doc, [], null, {
        owner: { kind: 'trust', id: '1' },
        documentId: '1',
        attachmentId: null,
      }),
    );
    await refusal(store.deletePermanently(doc, await store.lookAt(doc)));

    rmSync(abs('.docsync/trash'));
    mkdirSync(abs('.docsync/trash'));
    symlinkSync(outside, abs('.docsync/trash/2024-06-15'));
    await refusal(store.trash(`${doc}/minutes.pdf`, await store.lookAt(`${doc}/minutes.pdf`)));

    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(abs(`${doc}/minutes.pdf`), 'utf8')).toBe('signed minutes');
  });

  it('refuses a .docsync that is a link, and a .docsync/tmp that is a file', async () => {
    const { root, store, doc, outside, abs } = await storeWithDocument();
    rmSync(abs('.docsync'), { recursive: true });
    mkdirSync(path.join(outside, 'tmp'));
    symlinkSync(outside, abs('.docsync'));
    const error = await refusal(store.placeFile(doc, 'form.pdf', 'x'));
    expect(error.message).toContain(`${path.join(root, '.docsync')} is a symbolic link`);
    await refusal(store.writeMarker());
    expect(readdirSync(path.join(outside, 'tmp'))).toEqual([]);

    rmSync(abs('.docsync'));
    mkdirSync(abs('.docsync'));
    writeFileSync(abs('.docsync/tmp'), 'not a folder');
    expect((await refusal(store.placeFile(doc, 'form.pdf', 'x'))).message).toContain(
      `${abs('.docsync/tmp')} is a file`,
    );
  });

  it('sweeps nothing in the target of a link', async () => {
    const { store, outside, abs, link } = await storeWithDocument();
    const old = new Date(2020, 0, 1);
    mkdirSync(path.join(outside, '2020-01-01'));
    writeFileSync(path.join(outside, '2020-01-01', 'precious.txt'), 'keep me');
    writeFileSync(path.join(outside, 'stale.part'), 'keep me too');
    utimesSync(path.join(outside, 'stale.part'), old, old);
    const untouched = () => [
      readFileSync(path.join(outside, '2020-01-01', 'precious.txt'), 'utf8'),
      readFileSync(path.join(outside, 'stale.part'), 'utf8'),
    ];

    link('.docsync/trash');
    expect((await refusal(store.sweepTrash())).message).toContain('.docsync/trash');
    expect(untouched()).toEqual(['keep me', 'keep me too']);

    rmSync(abs('.docsync/trash'));
    mkdirSync(abs('.docsync/trash'));
    link('.docsync/tmp');
    expect((await refusal(store.sweepTrash())).message).toContain('.docsync/tmp');
    expect(untouched()).toEqual(['keep me', 'keep me too']);

    // Links inside real folders: an old day that is a link, a link inside an old day, an old
    // temp entry that is a link. The links go; what they point to stays.
    rmSync(abs('.docsync/tmp'));
    mkdirSync(abs('.docsync/tmp'));
    symlinkSync(outside, abs('.docsync/trash/2020-01-02'));
    mkdirSync(abs('.docsync/trash/2020-01-03'));
    symlinkSync(outside, abs('.docsync/trash/2020-01-03/Companies'));
    symlinkSync(outside, abs('.docsync/tmp/old.dir'));
    lutimesSync(abs('.docsync/tmp/old.dir'), old, old);
    expect((await store.sweepTrash()).sort()).toEqual([
      '.docsync/tmp/old.dir',
      '.docsync/trash/2020-01-02',
      '.docsync/trash/2020-01-03',
    ]);
    expect(readdirSync(abs('.docsync/trash'))).toEqual([]);
    expect(readdirSync(abs('.docsync/tmp'))).toEqual([]);
    expect(untouched()).toEqual(['keep me', 'keep me too']);
  });
});
