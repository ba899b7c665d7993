/**
 * Which SQLite errors mean "the state file or its disk is unusable", and the one sentence each
 * gets. better-sqlite3 throws `SqliteError` with SQLite's extended result code; the codes below are
 * the ones no retry fixes and a person must act on (free space, fix the disk or its permissions,
 * move a damaged file aside). `SQLITE_BUSY` (another process held the write lock past the busy
 * timeout) and `SQLITE_CONSTRAINT` (a bug) are not among them: they say nothing about the file.
 * While the file is being opened, docsync first makes its folder and the file itself, so the
 * system's errors about the path (`EACCES`, `ENOTDIR`, `EROFS`, ...) are explained too; only
 * then, since later no other code of the state touches the path.
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { StateFailureError, type StateFailureKind } from '../domain/errors.js';

const KINDS: readonly (readonly [prefix: string, kind: StateFailureKind])[] = [
  ['SQLITE_FULL', 'full'],
  ['SQLITE_IOERR', 'io'],
  ['SQLITE_READONLY', 'access'],
  ['SQLITE_CANTOPEN', 'access'],
  ['SQLITE_PERM', 'access'],
  ['SQLITE_CORRUPT', 'corrupt'],
  ['SQLITE_NOTADB', 'corrupt'],
];

/** The system's errors about the path, met while making the folder and the file (header). */
const PATH_KINDS: Readonly<Record<string, StateFailureKind>> = {
  EACCES: 'access',
  EPERM: 'access',
  EROFS: 'access',
  ENOSPC: 'full',
  EDQUOT: 'full',
  EIO: 'io',
  ENOTDIR: 'path',
  EEXIST: 'path',
  EISDIR: 'path',
  ELOOP: 'path',
  ENAMETOOLONG: 'path',
};

interface Found {
  readonly kind: StateFailureKind;
  readonly code: string;
  /** What SQLite or the system said, with its code. */
  readonly said: string;
}

function find(error: unknown, opening: boolean): Found | null {
  if (error instanceof BetterSqlite3.SqliteError) {
    // Extended codes extend the primary one: SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED, ...
    const found = KINDS.find(
      ([prefix]) => error.code === prefix || error.code.startsWith(`${prefix}_`),
    );
    return found
      ? { kind: found[1], code: error.code, said: `${error.code}: ${error.message}` }
      : null;
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const kind = opening && typeof code === 'string' ? PATH_KINDS[code] : undefined;
  // Node's message already starts with its code: "EACCES: permission denied, mkdir '/x'".
  return kind ? { kind, code: code as string, said: (error as Error).message } : null;
}

/** Whether `error` says the state file or its disk cannot be used (see the header). */
export function isStateFailure(error: unknown): boolean {
  return error instanceof StateFailureError || find(error, false) !== null;
}

/**
 * `error` as the operator's StateFailureError naming `file`, or null when it is not a state
 * failure. An error that already is one is returned as it is. `opening`: the error came from
 * opening the file, so the system's errors about its path count too.
 */
export function stateFailureOf(
  error: unknown,
  file: string,
  options: { opening?: boolean } = {},
): StateFailureError | null {
  if (error instanceof StateFailureError) return error;
  const found = find(error, options.opening ?? false);
  if (found === null) return null;
  const { kind, code, said } = found;
  const dir = path.dirname(file);
  const sentence: Record<StateFailureKind, string> = {
    full:
      `docsync cannot write its state database ${file} because the disk is full (${said}); ` +
      `free space on the disk holding ${dir}, then start docsync again.`,
    io:
      `docsync cannot use its state database ${file} because the disk reported an error ` +
      `(${said}); check the disk holding ${dir} (the kernel log says more), then start ` +
      'docsync again.',
    access:
      `docsync cannot write its state database ${file} (state.path; ${said}); make sure ` +
      `${dir} and the file are writable by the user docsync runs as, or set state.path to a ` +
      'place it can write, then start docsync again.',
    corrupt:
      `The state database ${file} is damaged (${said}); move it aside with its -wal and -shm ` +
      "files and run docsync again, which rebuilds the agreed state from the folder's " +
      '.document.json files but needs the login again (`docsync auth login`, or ' +
      'DOCSYNC_REFRESH_TOKEN), or restore the copy taken before an upgrade.',
    path:
      `docsync cannot make its state database ${file} (state.path; ${said}): a part of that ` +
      'path is a file, or the path is a folder; set state.path to a file in a folder docsync ' +
      'may write, then start docsync again.',
  };
  return new StateFailureError(file, kind, code, sentence[kind], { cause: error });
}

/** `error` turned into the operator's sentence when it is a state failure; otherwise as it is. */
export function explainStateFailure(
  error: unknown,
  file: string,
  options: { opening?: boolean } = {},
): unknown {
  return stateFailureOf(error, file, options) ?? error;
}
