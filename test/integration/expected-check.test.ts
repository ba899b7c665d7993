/**
 * The check before a write over what the plan saw (src/local/expected.ts), where the stamps of
 * a file cannot tell an edit from none (a share without inode numbers, or with whole-second
 * times): the content decides.
 */
import type { Stats } from 'node:fs';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalChangedError } from '../../src/domain/errors.js';
import { checkExpected, stampsCannotTell } from '../../src/local/expected.js';
import { stampOf } from '../../src/local/meta-file-cache.js';
import { formatDocumentMeta } from '../../src/local/metadata-files.js';
import { documentMeta, fsHarness } from '../helpers/local-store-harness.js';
import { sha256 } from '../helpers/sync-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-expected-');
const always = () => true;

function setUp() {
  const root = tempDir();
  const h = fsHarness(root);
  const stamp = (rel: string) => stampOf(lstatSync(path.join(root, rel)));
  return { root, h, stamp };
}

describe('the check before a write, where stamps cannot tell', () => {
  it('compares an attachment by its sha256', async () => {
    const { root, h, stamp } = setUp();
    h.write('Doc/a.pdf', 'seen');
    const seen = { kind: 'file', stamp: stamp('Doc/a.pdf'), sha256: sha256('seen') } as const;
    await expect(checkExpected(root, 'Doc/a.pdf', seen, [], always)).resolves.toBeUndefined();
    const other = { ...seen, sha256: sha256('something else') };
    await expect(checkExpected(root, 'Doc/a.pdf', other, [], always)).rejects.toBeInstanceOf(
      LocalChangedError,
    );
  });

  it('compares a .document.json by what it says, not by its spacing', async () => {
    const { root, h, stamp } = setUp();
    const meta = documentMeta();
    h.write('Doc/.document.json', JSON.stringify(meta));
    const seen = { kind: 'file', stamp: stamp('Doc/.document.json'), meta } as const;
    await expect(checkExpected(root, 'Doc/.document.json', seen, [], always)).resolves.toBe(
      undefined,
    );
    h.write('Doc/.document.json', formatDocumentMeta(meta));
    const spaced = { ...seen, stamp: stamp('Doc/.document.json') };
    await expect(checkExpected(root, 'Doc/.document.json', spaced, [], always)).resolves.toBe(
      undefined,
    );
    const typed = { ...spaced, meta: documentMeta({ status: 'typed by Jo' }) };
    await expect(checkExpected(root, 'Doc/.document.json', typed, [], always)).rejects.toThrow(
      'Doc/.document.json changed during the sync',
    );
  });

  it.each([
    [
      'no inode numbers',
      { ino: 0, mtimeMs: 1_700_000_000_123.5, ctimeMs: 1_700_000_000_123.5 },
      true,
    ],
    [
      'whole-second times',
      { ino: 42, mtimeMs: 1_700_000_000_000, ctimeMs: 1_700_000_001_000 },
      true,
    ],
    [
      'inodes and finer times',
      { ino: 42, mtimeMs: 1_700_000_000_123.5, ctimeMs: 1_700_000_000_000 },
      false,
    ],
  ])('knows when stamps cannot tell: %s', (_, stats, cannot) => {
    expect(stampsCannotTell(stats as Stats)).toBe(cannot);
  });
});
