import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InstanceLock } from '../../src/state/instance-lock.js';
import { MIGRATIONS } from '../../src/state/migrations.js';
import { openDatabase, schemaVersion } from '../../src/state/open-database.js';
import { StateStore } from '../../src/state/state-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

const SYNC_TABLES = [
  'activity',
  'announced_deletions',
  'base_documents',
  'conflicts',
  'cursors',
  'cycles',
  'deleted_in_service',
  'entities',
  'entity_work',
  'held_deletes',
  'meta_files',
  'oauth_tokens',
  'operator_decisions',
  'outbox',
  'problems',
  'pulls_in_doubt',
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

  it('rebuilds the outbox for replace-attachment (v5), keeping every push, its id and the id counter', () => {
    const file = path.join(tempDir(), 'v4.db');
    const v4 = openDatabase(file, { migrations: MIGRATIONS.filter((m) => m.version <= 4) });
    const insert = v4.prepare(
      `INSERT INTO outbox (owner_kind, owner_id, document_id, depends_on, kind, payload_json,
         idempotency_key, state, created_at, updated_at)
       VALUES ('trust', '1', ?, ?, ?, ?, ?, 'pending', 0, 0)`,
    );
    const create = JSON.stringify({ name: 'Minutes', documentDate: '2024-05-01', folder: 'T/M' });
    const upload = JSON.stringify({ fileName: 'a.pdf', sha256: 'x', size: 1, mtimeMs: 1 });
    const parent = Number(insert.run(null, null, 'create-document', create, 'c').lastInsertRowid);
    insert.run(null, parent, 'upload-attachment', upload, 'u');
    const pruned = Number(
      insert.run('9', null, 'upload-attachment', upload, 'gone').lastInsertRowid,
    );
    v4.prepare('DELETE FROM outbox WHERE id = ?').run(pruned);
    v4.close();

    const store = StateStore.open(file);
    const kept = [parent, parent + 1].map((id) => store.outbox.get(id));
    expect(kept.map((p) => [p?.kind, p?.dependsOn])).toEqual([
      ['create-document', null],
      ['upload-attachment', parent],
    ]);
    const replace = store.outbox.record({
      owner: { kind: 'trust', id: '1' },
      documentId: '9',
      kind: 'replace-attachment',
      payload: { fileName: 'a.pdf', sha256: 'y', size: 2, mtimeMs: 2, replacesAttachmentId: 'UA1' },
    });
    expect(replace, 'the id of a pruned push is never handed out again').toBeGreaterThan(pruned);
    store.close();
  });

  it('gives open pushes keys of escaped parts (v12): a refusal keeps its backoff, and x.pdf is not "x.pdf: y.pdf"', () => {
    const file = path.join(tempDir(), 'v11.db');
    const v11 = openDatabase(file, { migrations: MIGRATIONS.filter((m) => m.version <= 11) });
    const insert = v11.prepare(
      `INSERT INTO outbox (owner_kind, owner_id, document_id, kind, payload_json,
         idempotency_key, state, next_attempt_at, created_at, updated_at)
       VALUES ('trust', '1', '9', 'upload-attachment', ?, ?, ?, ?, 0, 0)`,
    );
    const payload = (fileName: string) => ({ fileName, sha256: 'x', size: 1, mtimeMs: 1 });
    const text = (fileName: string) => JSON.stringify(payload(fileName));
    const refused = Number(
      insert.run(text('x.pdf: y.pdf'), 'upload:9:x.pdf: y.pdf:x', 'failed', 5000).lastInsertRowid,
    );
    insert.run(text('x.pdf'), 'upload:9:x.pdf:x', 'done', null);
    v11.close();

    const store = StateStore.open(file);
    const again = store.outbox.record({
      owner: { kind: 'trust', id: '1' },
      documentId: '9',
      kind: 'upload-attachment',
      payload: payload('x.pdf: y.pdf'),
    });
    expect(again, 'the refused push is found, not recorded again').toBe(refused);
    expect(store.outbox.get(refused)).toMatchObject({ state: 'failed', nextAttemptAt: 5000 });
    expect(store.outbox.supersede('9', 'x.pdf')).toBe(0);
    store.close();
  });

  it('keeps the local work a stop left (v18): each entity is work to sync at the next start, its count shown', () => {
    const file = path.join(tempDir(), 'v17.db');
    const v17 = openDatabase(file, { migrations: MIGRATIONS.filter((m) => m.version <= 17) });
    v17
      .prepare(
        `INSERT INTO local_work (owner_kind, owner_id, documents, files, found_at)
         VALUES ('trust', '1', 2, 3, 5000), ('company', 'c', 1, 0, 7000)`,
      )
      .run();
    v17.close();

    const store = StateStore.open(file);
    expect(store.work.all().map((w) => [w.owner.id, w.lane, w.dueAt, w.reasons])).toEqual([
      ['1', 'watcher', 5000, ['local']],
      ['c', 'watcher', 7000, ['local']],
    ]);
    expect(store.work.localTally()).toEqual({ entities: 2, documents: 3, files: 3, since: 5000 });
    // Observed again after the upgrade: later than what the upgrade kept, so a sync that started
    // before it does not settle it.
    const seen = store.work.seenSoFar();
    store.work.observe(
      { kind: 'trust', id: '1' },
      { reason: 'watcher', lane: 'watcher', at: 9000 },
    );
    store.work.settle({ kind: 'trust', id: '1' }, seen, false);
    expect(store.work.get({ kind: 'trust', id: '1' })).not.toBeNull();
    store.close();
  });

  it("lets cycles have the trigger 'manual' (v8), keeping every cycle, its id and the id counter", () => {
    const file = path.join(tempDir(), 'v7.db');
    const v7 = openDatabase(file, { migrations: MIGRATIONS.filter((m) => m.version <= 7) });
    const insert = v7.prepare(
      `INSERT INTO cycles (trigger, owner_kind, owner_id, full_reconcile, started_at, finished_at,
         result) VALUES (?, ?, ?, 0, 1000, 2000, ?)`,
    );
    const round = Number(insert.run('cron', null, null, 'ok').lastInsertRowid);
    const entity = Number(insert.run('webhook', 'trust', '1', 'safety-stop').lastInsertRowid);
    const pruned = Number(insert.run('cron', null, null, 'ok').lastInsertRowid);
    v7.prepare('DELETE FROM cycles WHERE id = ?').run(pruned);
    expect(() => insert.run('manual', 'trust', '1', 'ok')).toThrow(/CHECK constraint/);
    v7.close();

    const store = StateStore.open(file);
    expect(store.cycles.list().map((c) => [c.id, c.trigger, c.owner, c.result])).toEqual([
      [entity, 'webhook', { kind: 'trust', id: '1' }, 'safety-stop'],
      [round, 'cron', null, 'ok'],
    ]);
    const manual = store.cycles.start({
      trigger: 'manual',
      owner: { kind: 'trust', id: '1' },
      startedAt: 3000,
    });
    expect(manual, 'the id of a pruned cycle is never handed out again').toBeGreaterThan(pruned);
    expect(store.cycles.last()?.trigger).toBe('manual');
    store.close();
  });

  it('upgrades a version 1 database in place and keeps its lock and settings', () => {
    const file = path.join(tempDir(), 'v1.db');
    const v1 = openDatabase(file, { migrations: MIGRATIONS.slice(0, 1) });
    expect(schemaVersion(v1)).toBe(1);
    v1.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('housekeepingAt', '1234');
    const lock = InstanceLock.acquire(v1, { pid: 4242, hostname: 'old-host' });
    v1.close();

    const store = StateStore.open(file);
    expect(schemaVersion(store.db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(store.settings.housekeepingAt()).toBe(1234);
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
