/**
 * Which SQLite errors mean "the state file or its disk is unusable", and the one sentence each
 * gets. better-sqlite3 throws `SqliteError` with SQLite's extended result code; the codes below are
 * the ones no retry fixes and a person must act on (free space, fix the disk or its permissions,
 * move a damaged file aside). `SQLITE_BUSY` (another process held the write lock past the busy
 * timeout) and `SQLITE_CONSTRAINT` (a bug) are not among them: they say nothing about the file.
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

function kindOf(error: unknown): StateFailureKind | null {
  if (error instanceof StateFailureError) return error.kind;
  if (!(error instanceof BetterSqlite3.SqliteError)) return null;
  // Extended codes extend the primary one: SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED, ...
  const found = KINDS.find(
    ([prefix]) => error.code === prefix || error.code.startsWith(`${prefix}_`),
  );
  return found?.[1] ?? null;
}

/** Whether `error` says the state file or its disk cannot be used (see the header). */
export function isStateFailure(error: unknown): boolean {
  return kindOf(error) !== null;
}

/**
 * `error` as the operator's StateFailureError naming `file`, or null when it is not a state
 * failure. An error that already is one is returned as it is.
 */
export function stateFailureOf(error: unknown, file: string): StateFailureError | null {
  if (error instanceof StateFailureError) return error;
  const kind = kindOf(error);
  if (kind === null) return null;
  const { code, message } = error as InstanceType<typeof BetterSqlite3.SqliteError>;
  const sqlite = `${code}: ${message}`;
  const dir = path.dirname(file);
  const sentence: Record<StateFailureKind, string> = {
    full:
      `docsync cannot write its state database ${file} because the disk is full (${sqlite}); ` +
      `free space on the disk holding ${dir}, then start docsync again.`,
    io:
      `docsync cannot use its state database ${file} because the disk reported an error ` +
      `(${sqlite}); check the disk holding ${dir} (the kernel log says more), then start ` +
      'docsync again.',
    access:
      `docsync cannot write its state database ${file} (${sqlite}); make sure the file and ` +
      `${dir} exist and are writable by the user docsync runs as, then start docsync again.`,
    corrupt:
      `The state database ${file} is damaged (${sqlite}); move it aside with its -wal and -shm ` +
      "files and run docsync again, which rebuilds the agreed state from the folder's " +
      '.document.json files but needs the login again (`docsync auth login`, or ' +
      'DOCSYNC_REFRESH_TOKEN), or restore the copy taken before an upgrade.',
  };
  return new StateFailureError(file, kind, code, sentence[kind], { cause: error });
}

/** `error` turned into the operator's sentence when it is a state failure; otherwise as it is. */
export function explainStateFailure(error: unknown, file: string): unknown {
  return stateFailureOf(error, file) ?? error;
}
