/**
 * The guard every local file operation goes through: a relative path from the engine (built
 * from remote names, or read back from a folder a user controls) is resolved against the root,
 * and anything that would land outside it is refused with a PathEscapeError.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { PathEscapeError } from '../domain/errors.js';

/** The absolute path of `relPath` (`/`-separated) inside `root`; throws when it would leave it. */
export function resolveInside(root: string, relPath: string): string {
  if (relPath.includes('\u0000') || path.isAbsolute(relPath) || /^[a-zA-Z]:/u.test(relPath)) {
    throw new PathEscapeError(root, relPath);
  }
  if (isPlainPath(relPath) && isResolvedRoot(root)) return `${root}/${relPath}`;
  const base = path.resolve(root);
  const absolute = path.resolve(base, ...relPath.split(/[\\/]/u));
  if (!isWithin(base, absolute)) throw new PathEscapeError(root, relPath);
  return absolute;
}

/**
 * Like resolveInside, and also through symlinks: the deepest existing ancestor of the path must
 * really be inside the real root. Writes use this, so a symlinked folder cannot carry a write out.
 */
export async function resolveInsideReal(root: string, relPath: string): Promise<string> {
  const absolute = resolveInside(root, relPath);
  const realRoot = await realpath(root);
  let probe = absolute;
  for (;;) {
    try {
      const real = await realpath(probe);
      if (!isWithin(realRoot, real)) throw new PathEscapeError(root, relPath);
      return absolute;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const parent = path.dirname(probe);
      if (parent === probe) throw error;
      probe = parent;
    }
  }
}

/** `/`-separated path of `absolute` relative to `root`. */
export function toRelative(root: string, absolute: string): string {
  return path.relative(path.resolve(root), absolute).split(path.sep).join('/');
}

/**
 * Names joined by single `/`, none of them `.`, `..` or holding a `\\`: such a path stays inside
 * any root, so joining it to a resolved root is the whole answer. A scan resolves a few paths
 * per document, and `path.resolve` + `path.relative` on each add up over a firm.
 */
function isPlainPath(relPath: string): boolean {
  if (relPath === '' || relPath.includes('\\') || path.sep !== '/') return false;
  for (const name of relPath.split('/')) {
    if (name === '' || name === '.' || name === '..') return false;
  }
  return true;
}

let lastResolvedRoot = '';
/** An absolute root with no `.`, `..`, doubled or trailing `/`, as path.resolve returns it. */
function isResolvedRoot(root: string): boolean {
  if (root === lastResolvedRoot) return true;
  if (root === '/' || path.resolve(root) !== root) return false;
  lastResolvedRoot = root;
  return true;
}

/** Whether `candidate` (absolute) is `base` or lies below it. */
export function isWithin(base: string, candidate: string): boolean {
  const rel = path.relative(base, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
