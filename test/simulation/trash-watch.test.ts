/**
 * Invariant 10's watch (trash-watch.ts) on a real folder: a file trashed with its bytes passes, a
 * file whose trash copy holds other bytes (or none), a folder deleted for good, or a person's
 * edit of a system form not kept beside it, is a finding.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchRemoval } from './trash-watch.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function folder(): { root: string; write: (rel: string, text: string) => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'trash-watch-'));
  roots.push(root);
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  return { root, write };
}

describe('every file docsync removes is in the trash with its bytes', () => {
  it('passes a folder moved to the trash whole, and finds one whose copy lost a file', () => {
    const { root, write } = folder();
    write('Doc/a.pdf', 'a');
    write('Doc/b.pdf', 'b');
    const found: string[] = [];
    const removed = watchRemoval(root, 'trash', ['Doc'], (d) => found.push(d))!;
    mkdirSync(path.join(root, '.docsync/trash/day'), { recursive: true });
    renameSync(path.join(root, 'Doc'), path.join(root, '.docsync/trash/day/Doc'));
    removed('.docsync/trash/day/Doc');
    expect(found).toEqual([]);
    write('Doc/a.pdf', 'a2');
    const again = watchRemoval(root, 'trash', ['Doc/a.pdf'], (d) => found.push(d))!;
    rmSync(path.join(root, 'Doc/a.pdf'));
    write('.docsync/trash/day/Doc/a (2).pdf', 'other');
    again('.docsync/trash/day/Doc/a (2).pdf');
    expect(found).toEqual([
      expect.stringContaining(
        'Doc/a.pdf trashed, yet .docsync/trash/day/Doc/a (2).pdf holds other bytes',
      ),
    ]);
  });

  it('finds a folder deleted for good, its files in no trash', () => {
    const { root, write } = folder();
    write('Doc/a.pdf', 'a');
    const found: string[] = [];
    const deleted = watchRemoval(root, 'deletePermanently', ['Doc'], (d) => found.push(d))!;
    rmSync(path.join(root, 'Doc'), { recursive: true });
    deleted(undefined);
    expect(found).toEqual([expect.stringContaining('Doc/a.pdf (ca978112ca1b) deleted for good')]);
  });

  it("finds a system form put back over a person's edit that is not kept beside it", () => {
    const { root, write } = folder();
    write('Doc/form.pdf', 'edited');
    const found: string[] = [];
    const restored = watchRemoval(root, 'restoreSystemAttachment', ['Doc', 'form.pdf'], (d) =>
      found.push(d),
    )!;
    write('Doc/form.pdf', 'original');
    restored({ file: {}, editedCopy: null });
    expect(found).toEqual([expect.stringContaining('Doc/form.pdf')]);
  });
});
