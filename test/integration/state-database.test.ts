import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateError } from '../../src/domain/errors.js';
import { MIGRATIONS, type Migration } from '../../src/state/migrations.js';
import { openDatabase, schemaVersion } from '../../src/state/open-database.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

const tables = (db: ReturnType<typeof openDatabase>) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((row) => row.name);

describe('state database', () => {
  it('is created private (0600), in WAL mode, at the latest schema', () => {
    const file = path.join(tempDir(), 'nested', 'docsync.db');
    const db = openDatabase(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    db.close();
  });

  it('upgrades an older database step by step and keeps its data', () => {
    const file = path.join(tempDir(), 'docsync.db');
    const v1: Migration[] = [
      { version: 1, name: 'notes', up: (db) => db.exec('CREATE TABLE notes (text TEXT)') },
    ];
    const old = openDatabase(file, { migrations: v1 });
    old.prepare('INSERT INTO notes VALUES (?)').run('kept');
    old.close();

    const v3: Migration[] = [
      ...v1,
      { version: 2, name: 'tags', up: (db) => db.exec('CREATE TABLE tags (tag TEXT)') },
      {
        version: 3,
        name: 'note length',
        up: (db) => db.exec('ALTER TABLE notes ADD COLUMN length INTEGER'),
      },
    ];
    const db = openDatabase(file, { migrations: v3 });
    expect(schemaVersion(db)).toBe(3);
    expect(tables(db)).toEqual(['notes', 'tags']);
    expect(db.prepare('SELECT text, length FROM notes').all()).toEqual([
      { text: 'kept', length: null },
    ]);
    db.close();
  });

  it('rolls a failed migration back whole, so the next start retries it', () => {
    const file = path.join(tempDir(), 'docsync.db');
    const broken: Migration[] = [
      {
        version: 1,
        name: 'half done',
        up: (db) => {
          db.exec('CREATE TABLE first (x)');
          throw new Error('disk full');
        },
      },
    ];
    expect(() => openDatabase(file, { migrations: broken })).toThrow('disk full');
    const db = openDatabase(file, { migrations: [] });
    expect(schemaVersion(db)).toBe(0);
    expect(tables(db)).toEqual([]);
    db.close();
  });

  it('refuses a database written by a newer docsync, with a message that says what to do', () => {
    const file = path.join(tempDir(), 'docsync.db');
    const newer = openDatabase(file);
    newer.pragma(`user_version = ${MIGRATIONS.at(-1)!.version + 5}`);
    newer.close();

    const open = () => openDatabase(file);
    expect(open).toThrow(StateError);
    expect(open).toThrow(/written by a newer docsync/);
  });
});
