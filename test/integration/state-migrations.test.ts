import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InstanceLock } from '../../src/state/instance-lock.js';
import { MIGRATIONS } from '../../src/state/migrations.js';
import { openDatabase, schemaVersion } from '../../src/state/open-database.js';
import { StateStore } from '../../src/state/state-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

const SYNC_TABLES = [
  'base_documents',
  'conflicts',
  'cursors',
  'cycles',
  'entities',
  'meta_files',
  'oauth_tokens',
  'outbox',
  'problems',
  'skipped_entries',
  'status_types',
  'unmatched_folders',
  'webhook_events',
];

function tableNames(db: ReturnType<typeof openDatabase>): string[] {
  return db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all() as string[];
}

describe('state migrations', () => {
  it('creates every table, all STRICT, on a fresh database', () => {
    const db = openDatabase(path.join(tempDir(), 'fresh.db'));
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(tableNames(db)).toEqual([...SYNC_TABLES, 'instance_lock', 'settings'].sort());
    const notStrict = db
      .prepare(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND strict = 0 AND name NOT LIKE 'sqlite_%'",
      )
      .pluck()
      .all();
    expect(notStrict).toEqual([]);
    db.close();
  });

  it('upgrades a version 1 database in place and keeps its lock and settings', () => {
    const file = path.join(tempDir(), 'v1.db');
    const v1 = openDatabase(file, { migrations: MIGRATIONS.slice(0, 1) });
    expect(schemaVersion(v1)).toBe(1);
    v1.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('storeId', 'store-from-v1');
    const lock = InstanceLock.acquire(v1, { pid: 4242, hostname: 'old-host' });
    v1.close();

    const store = StateStore.open(file);
    expect(schemaVersion(store.db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(store.settings.storeId()).toBe('store-from-v1');
    expect(store.db.prepare('SELECT owner, pid, hostname FROM instance_lock').get()).toEqual({
      owner: lock.owner,
      pid: 4242,
      hostname: 'old-host',
    });
    expect(tableNames(store.db)).toEqual(expect.arrayContaining(SYNC_TABLES));
    store.close();
  });

  it('numbers migrations 1, 2, … without gaps, so none is skipped', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});
