/**
 * The schema as an ordered list of migrations on `PRAGMA user_version`. Append only: a released
 * migration is never edited, because some database out there already ran it.
 */
import type { Database } from 'better-sqlite3';
import { SCHEMA_V2 } from './schema-v2.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly up: (db: Database) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'instance lock and settings',
    up: (db) =>
      db.exec(`
        CREATE TABLE instance_lock (
          id          INTEGER PRIMARY KEY CHECK (id = 1),
          owner       TEXT    NOT NULL,
          pid         INTEGER NOT NULL,
          hostname    TEXT    NOT NULL,
          acquired_at INTEGER NOT NULL,
          expires_at  INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE settings (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) STRICT;
      `),
  },
  {
    version: 2,
    name: 'sync state: tokens, entities, cursors, base, outbox, problems, conflicts, events, cycles',
    up: (db) => db.exec(SCHEMA_V2),
  },
  {
    version: 3,
    name: 'what each .document.json held, by folder and file stamp',
    up: (db) =>
      db.exec(`
        CREATE TABLE meta_files (
          folder    TEXT PRIMARY KEY,
          stamp     TEXT NOT NULL,
          meta_json TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
      `),
  },
  {
    version: 4,
    name: 'entries of the folder that are not synced, and why',
    up: (db) =>
      db.exec(`
        CREATE TABLE skipped_entries (
          owner_kind    TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id      TEXT    NOT NULL,
          path          TEXT    NOT NULL,
          reason        TEXT    NOT NULL,
          first_seen_at INTEGER NOT NULL,
          last_seen_at  INTEGER NOT NULL,
          PRIMARY KEY (owner_kind, owner_id, path)
        ) STRICT, WITHOUT ROWID;
      `),
  },
];
