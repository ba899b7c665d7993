/**
 * Opens the state database: created mode 0600 (it holds OAuth tokens), WAL so the status page
 * can read while a cycle writes, a busy timeout instead of instant SQLITE_BUSY, and migrations
 * applied in order. A database written by a newer docsync is refused, never "downgraded"; one
 * SQLite cannot read (damaged, not a database) is refused with what to do about it.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { StateError } from '../domain/errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { explainStateFailure } from './state-failure.js';

export type { Database } from 'better-sqlite3';

export interface OpenDatabaseOptions {
  /** Replaces the built-in list; for tests of the migration mechanism. */
  readonly migrations?: readonly Migration[];
  readonly busyTimeoutMs?: number;
  /**
   * Open only a database that is there (`missingState` otherwise). A command that reads the
   * state or records a person's decision in it must never create one.
   */
  readonly existing?: boolean;
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
  if (!options.existing) createPrivateFile(file);
  const db = new BetterSqlite3(file, { fileMustExist: options.existing ?? false });
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.pragma('journal_mode = WAL');
    // NORMAL, and FULL only for the commits that make a promise to the outside (durably.ts):
    // a flush per commit blocked the event loop ~1 ms each, thousands of times a sync.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, file, migrations);
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

function migrate(db: Database, file: string, migrations: readonly Migration[]): void {
  const known = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > known) {
    throw new StateError(
      'STATE_TOO_NEW',
      `The state database ${file} has schema version ${current}, but this docsync knows up to ` +
        `${known}. It was written by a newer docsync; run that version, or move the file aside ` +
        'to start over (the folder and the service are not touched).',
    );
  }
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
