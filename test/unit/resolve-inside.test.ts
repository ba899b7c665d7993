/**
 * The guard under every local file operation: paths built from remote names or read from a
 * user's folder resolve inside the root or are refused, whichever of its two paths (the plain
 * join, or path.resolve) answers.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PathEscapeError } from '../../src/domain/errors.js';
import { resolveInside } from '../../src/local/resolve-inside.js';

const root = '/srv/documents';

describe('resolveInside', () => {
  it('joins a plain relative path to the root', () => {
    expect(resolveInside(root, 'Companies/Acme (123)/2026-01-01 Return')).toBe(
      '/srv/documents/Companies/Acme (123)/2026-01-01 Return',
    );
  });

  it('normalises `.` and doubled slashes, and resolves a root given loosely', () => {
    expect(resolveInside(root, './Companies//Acme/.')).toBe('/srv/documents/Companies/Acme');
    expect(resolveInside('/srv/x/../documents/', 'Trusts')).toBe('/srv/documents/Trusts');
    expect(resolveInside(root, 'Companies/../Trusts')).toBe('/srv/documents/Trusts');
    expect(resolveInside(root, '')).toBe('/srv/documents');
  });

  it.each([
    '..',
    '../outside',
    'Companies/../../outside',
    '/etc/passwd',
    'C:/Windows',
    'c:evil',
    'a\u0000b',
    '..\\outside',
    'Companies\\..\\..\\outside',
  ])('refuses %j, which would leave the root', (relPath) => {
    expect(() => resolveInside(root, relPath)).toThrow(PathEscapeError);
  });

  it('gives the same answer as path.resolve for every shape of path', () => {
    const parts = ['a', '.', '..', '', 'b c', '.hidden', '...', 'd\\e'];
    let checked = 0;
    for (const x of parts)
      for (const y of parts)
        for (const z of parts) {
          const relPath = [x, y, z].join('/');
          const expected = path.resolve(root, ...relPath.split(/[\\/]/u));
          const inside =
            !relPath.startsWith('/') && (expected === root || expected.startsWith(`${root}/`));
          if (inside) expect(resolveInside(root, relPath)).toBe(expected);
          else expect(() => resolveInside(root, relPath)).toThrow(PathEscapeError);
          checked++;
        }
    expect(checked).toBe(parts.length ** 3);
  });
});
