/**
 * Opens the state database: created mode 0600 (it holds OAuth tokens), WAL so the status page
 * can read while a cycle writes, a busy timeout instead of instant SQLITE_BUSY, and migrations
 * applied in order. A database written by a newer docsync is refused, never "downgraded"; one
 * SQLite cannot read (damaged, not a database) is refused with what to do about it. Only
 * `docsync run` migrates it: the other commands take it as it is (`existing`, `upgrade: false`).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { StateError, StateSchemaError } from '../domain/errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { explainStateFailure } from './state-failure.js';

export type { Database } from 'better-sqlite3';

export interface OpenDatabaseOptions {
  /** Replaces the built-in list; for tests of the migration mechanism. */
  readonly migrations?: readonly Migration[];
  readonly busyTimeoutMs?: number;
  /**
   * Open the database as it is: only one that is there (`missingState` otherwise), at the
   * schema this docsync writes (`StateSchemaError` otherwise, older or newer), never created or
   * migrated. For every command that reads the state or records a person's decision in it
   * (`status`, `open`, `check`, `conflicts`, `trash`, `deletes`): a mistyped `state.path` must
   * not turn into a new empty state ("nothing held"), and an older file may belong to the
   * previous version's daemon, still running, which a migration under it would break. Only
   * `docsync run` (the daemon, `--once`) upgrades the file, under its lock.
   */
  readonly existing?: boolean;
  /**
   * False: create a missing database, but take one that is there as it is, like `existing`
   * (`auth login`, `api`: their login needs a place to be kept, but they must not upgrade a
   * file the previous version's daemon may be using). Default true; ignored with `existing`.
   */
  readonly upgrade?: boolean;
}

export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  try {
    return open(file, options);
  } catch (error) {
    // A damaged or unwritable file is found here, before any command has started its work:
    // the operator gets one sentence naming the file and what to do, not SQLite's stack.
    throw explainStateFailure(error, file, { opening: true });
  }
}

function open(file: string, options: OpenDatabaseOptions): Database {
  const migrations = options.migrations ?? MIGRATIONS;
  const missing = options.existing ? missingState(file) : null;
  if (missing) throw missing;
  // A database this call creates is nobody else's yet: it gets every migration.
  const asIs = options.existing || (options.upgrade === false && existsSync(file));
  if (!options.existing) createPrivateFile(file);
  const db = new BetterSqlite3(file, { fileMustExist: options.existing ?? false });
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // Before any pragma that could write: a file refused here is left exactly as it was.
    if (asIs) refuseOtherSchema(db, file, migrations);
    db.pragma('journal_mode = WAL');
    // NORMAL, and FULL only for the commits that make a promise to the outside (durably.ts):
    // a flush per commit blocks the event loop, thousands of times a sync.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    if (!asIs) migrate(db, file, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The one answer to a state database that is not there, for every command that must never
 * create one (`status`, `open`, `check`, `conflicts`, `trash`, `deletes`): with a mistyped
 * `state.path`, a new empty state would pass for the truth ("nothing held"). Null when the file
 * is there.
 */
export function missingState(file: string): StateError | null {
  if (existsSync(file)) return null;
  return new StateError(
    'STATE_MISSING',
    `The state database ${file} (state.path) does not exist, and this command never creates ` +
      'one: check state.path in the configuration, or, on a new install, run ' +
      '`docsync auth login` and `docsync run --once` first.',
  );
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Taken as it is: a file at another schema than this docsync's is refused, older or newer. */
function refuseOtherSchema(db: Database, file: string, migrations: readonly Migration[]): void {
  const known = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > known) throw tooNew(file, current, known);
  if (current < known) {
    throw new StateSchemaError(
      'STATE_TOO_OLD',
      file,
      current,
      known,
      `The state database ${file} (state.path) has schema version ${current}, older than this ` +
        `docsync's ${known}, and this command never upgrades it (the previous version's daemon ` +
        "may still be using it): stop that daemon and start this version's (`docsync run`, or " +
        'run `docsync run --once`), which upgrades it, then run this command again.',
    );
  }
}

function tooNew(file: string, current: number, known: number): StateSchemaError {
  return new StateSchemaError(
    'STATE_TOO_NEW',
    file,
    current,
    known,
    `The state database ${file} has schema version ${current}, but this docsync knows up to ` +
      `${known}. It was written by a newer docsync; run that version, or move the file aside ` +
      'to start over (the folder and the service are not touched).',
  );
}

function migrate(db: Database, file: string, migrations: readonly Migration[]): void {
  const known = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > known) throw tooNew(file, current, known);
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    // Each migration and its version bump commit together, so a crash leaves either both or neither.
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

function createPrivateFile(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  // Create before SQLite does, so the umask never leaves a token-bearing file world-readable.
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}
