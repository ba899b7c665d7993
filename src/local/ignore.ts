/**
 * The ignore list of daemon.md plus configured globs, in one place: the watcher and the scanner
 * must agree, or a file the scanner skips would look deleted while the watcher reports it.
 * The patterns are globs, compiled with picomatch.
 */
import picomatch from 'picomatch';

/** Editor lock and swap files, and what operating systems drop into folders (daemon.md). */
export const DEFAULT_IGNORES: readonly string[] = [
  '~$*',
  '.~lock.*#',
  '*.swp',
  '*.swx',
  '*.tmp',
  '*~',
  '.#*',
  '4913',
  '.DS_Store',
  'Thumbs.db',
  'desktop.ini',
];

const compiled = new Map<string, (path: string) => boolean>();

/**
 * Whether a file or folder is never synced. `nameOrPath` is a name or a `/`-separated path
 * relative to the root; patterns without a slash match the last segment, patterns with one the
 * whole relative path. Letter case is ignored: `THUMBS.DB` is the same file on Windows.
 */
export function isIgnored(nameOrPath: string, extraPatterns: readonly string[] = []): boolean {
  const key = extraPatterns.join('\u0000');
  let matcher = compiled.get(key);
  if (!matcher) {
    matcher = compile([...DEFAULT_IGNORES, ...extraPatterns]);
    compiled.set(key, matcher);
  }
  return matcher(nameOrPath);
}

/** picomatch's own `basename` option would apply to every pattern, so the two kinds are split. */
function compile(patterns: readonly string[]): (path: string) => boolean {
  const options = { dot: true, nocase: true };
  const byName = patterns.filter((p) => !p.includes('/'));
  const byPath = patterns.filter((p) => p.includes('/'));
  const nameMatch = picomatch(byName, options);
  const pathMatch = byPath.length > 0 ? picomatch(byPath, options) : () => false;
  return (path) => nameMatch(path.slice(path.lastIndexOf('/') + 1)) || pathMatch(path);
}
