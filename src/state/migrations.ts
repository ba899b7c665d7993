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
    name: 'what an item in error was planned to do, so its backoff ends when that changes',
    up: (db) => db.exec('ALTER TABLE problems ADD COLUMN plan_fingerprint TEXT'),
  },
  {
    version: 5,
    name: 'outbox: a content replace is one push with two steps (replace-attachment)',
    // SQLite cannot change a CHECK in place: the table is rebuilt under a new name and renamed,
    // which also rewrites its self-reference; ids and the AUTOINCREMENT counter carry over, so
    // no id of a pruned push is ever handed out again.
    up: (db) => {
      const seq = db
        .prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")
        .pluck()
        .get();
      db.exec(`
        CREATE TABLE outbox_v5 (
          id              INTEGER PRIMARY KEY AUTOINCREMENT,
          owner_kind      TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id        TEXT    NOT NULL,
          document_id     TEXT,
          depends_on      INTEGER REFERENCES outbox_v5 (id),
          kind            TEXT    NOT NULL CHECK (kind IN ('create-document', 'upload-attachment',
                            'replace-attachment', 'delete-attachment', 'assign-status',
                            'delete-document')),
          payload_json    TEXT    NOT NULL CHECK (json_valid(payload_json)),
          idempotency_key TEXT    NOT NULL,
          state           TEXT    NOT NULL CHECK (state IN ('pending', 'sent', 'done', 'failed')),
          attempts        INTEGER NOT NULL DEFAULT 0,
          last_error      TEXT,
          next_attempt_at INTEGER,
          result_json     TEXT    CHECK (result_json IS NULL OR json_valid(result_json)),
          created_at      INTEGER NOT NULL,
          sent_at         INTEGER,
          updated_at      INTEGER NOT NULL
        ) STRICT;
        INSERT INTO outbox_v5 SELECT * FROM outbox;
        DROP TABLE outbox;
        ALTER TABLE outbox_v5 RENAME TO outbox;
        CREATE UNIQUE INDEX outbox_open_by_key ON outbox (idempotency_key) WHERE state <> 'done';
        CREATE INDEX outbox_by_state ON outbox (state, id);
        CREATE INDEX outbox_by_document ON outbox (document_id) WHERE document_id IS NOT NULL;
        CREATE INDEX outbox_by_parent ON outbox (depends_on) WHERE depends_on IS NOT NULL;
      `);
      if (seq === undefined) return;
      db.prepare("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'outbox'").run(seq);
      db.prepare(
        `INSERT INTO sqlite_sequence (name, seq) SELECT 'outbox', ?
         WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'outbox')`,
      ).run(seq);
    },
  },
  {
    version: 6,
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
  {
    version: 7,
    name: "activity: what the executor changed, for the status page's feed",
    // Append-only; the repository keeps the newest ACTIVITY_KEEP rows. AUTOINCREMENT so an id is
    // never handed out twice: the page pages back through the feed by id.
    up: (db) =>
      db.exec(`
        CREATE TABLE activity (
          id            INTEGER PRIMARY KEY AUTOINCREMENT,
          at            INTEGER NOT NULL,
          owner_kind    TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id      TEXT    NOT NULL,
          document_id   TEXT,
          document_name TEXT    NOT NULL,
          change        TEXT    NOT NULL CHECK (change IN ('pulled', 'pushed',
                          'deleted-in-service', 'trashed-locally', 'deleted-locally', 'conflict')),
          file          TEXT,
          detail        TEXT
        ) STRICT;
      `),
  },
  {
    version: 8,
    name: "cycles: a sync a person asked for on the status page has the trigger 'manual'",
    // Rebuilt as migration 5 rebuilt the outbox: SQLite cannot change a CHECK in place, and the
    // AUTOINCREMENT counter carries over.
    up: (db) => {
      const seq = db
        .prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'cycles'")
        .pluck()
        .get();
      db.exec(`
        CREATE TABLE cycles_v8 (
          id             INTEGER PRIMARY KEY AUTOINCREMENT,
          trigger        TEXT    NOT NULL CHECK (trigger IN ('cron', 'webhook', 'watcher', 'once',
                           'manual')),
          owner_kind     TEXT    CHECK (owner_kind IN ('company', 'trust')),
          owner_id       TEXT,
          full_reconcile INTEGER NOT NULL CHECK (full_reconcile IN (0, 1)),
          started_at     INTEGER NOT NULL,
          finished_at    INTEGER,
          result         TEXT    CHECK (result IN ('ok', 'partial', 'safety-stop', 'error',
                           'interrupted')),
          counts_json    TEXT    CHECK (counts_json IS NULL OR json_valid(counts_json)),
          error          TEXT,
          CHECK ((owner_kind IS NULL) = (owner_id IS NULL))
        ) STRICT;
        INSERT INTO cycles_v8 SELECT * FROM cycles;
        DROP TABLE cycles;
        ALTER TABLE cycles_v8 RENAME TO cycles;
        CREATE INDEX cycles_by_result ON cycles (result, id);
      `);
      if (seq === undefined) return;
      db.prepare("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'cycles'").run(seq);
      db.prepare(
        `INSERT INTO sqlite_sequence (name, seq) SELECT 'cycles', ?
         WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'cycles')`,
      ).run(seq);
    },
  },
  {
    version: 9,
    name: "deletes a rail holds, with the operator's decision; what a conflict was about, and how it was resolved",
    up: (db) =>
      db.exec(`
        CREATE TABLE held_deletes (
          document_id   TEXT    NOT NULL,
          side          TEXT    NOT NULL CHECK (side IN ('local', 'remote')),
          owner_kind    TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id      TEXT    NOT NULL,
          folder        TEXT    NOT NULL,
          document_name TEXT    NOT NULL,
          reason        TEXT    NOT NULL,
          first_held_at INTEGER NOT NULL,
          last_held_at  INTEGER NOT NULL,
          decision      TEXT    CHECK (decision IN ('approve', 'discard')),
          decided_at    INTEGER,
          PRIMARY KEY (document_id, side)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX held_deletes_by_owner ON held_deletes (owner_kind, owner_id);
        ALTER TABLE conflicts ADD COLUMN subject TEXT
          CHECK (subject IN ('file', 'local-edit', 'attachment', 'status', 'document'));
        ALTER TABLE conflicts ADD COLUMN subject_value TEXT;
        ALTER TABLE conflicts ADD COLUMN resolution TEXT
          CHECK (resolution IN ('keep-mine', 'keep-theirs', 'keep-both'));
        ALTER TABLE conflicts ADD COLUMN resolved_at INTEGER;
      `),
  },
  {
    version: 10,
    name: "when a removed folder's delete ends its hold time under the daemon",
    up: (db) => db.exec('ALTER TABLE held_deletes ADD COLUMN due_at INTEGER'),
  },
  {
    version: 11,
    name: 'durable webhook work (a retry time per event, the deletions it names until applied) and operator decisions handed to the daemon',
    up: (db) =>
      db.exec(`
        ALTER TABLE webhook_events ADD COLUMN next_attempt_at INTEGER;
        CREATE TABLE announced_deletions (
          owner_kind   TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id     TEXT    NOT NULL,
          document_id  TEXT    NOT NULL,
          event_id     TEXT    NOT NULL,
          announced_at INTEGER NOT NULL,
          PRIMARY KEY (owner_kind, owner_id, document_id)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE operator_decisions (
          id           INTEGER PRIMARY KEY AUTOINCREMENT,
          kind         TEXT    NOT NULL CHECK (kind IN ('resolve-conflict', 'restore-trash',
                         'decide-held-deletes')),
          request_json TEXT    NOT NULL CHECK (json_valid(request_json)),
          requested_at INTEGER NOT NULL,
          outcome_json TEXT    CHECK (outcome_json IS NULL OR json_valid(outcome_json)),
          finished_at  INTEGER,
          CHECK ((outcome_json IS NULL) = (finished_at IS NULL))
        ) STRICT;
        CREATE INDEX operator_decisions_open ON operator_decisions (id) WHERE finished_at IS NULL;
      `),
  },
  {
    version: 12,
    name: 'outbox: a push is known by its parts, escaped, never by a prefix of its key',
    // Keys were `upload:<document>:<file>:<sha256>`, so `x.pdf: y.pdf` began with `x.pdf:` and a
    // prefix match took one file for the other. Open pushes get the key push-identity.ts makes
    // now (a JSON array of the parts), so a change planned again finds its open push, and a
    // refusal keeps its backoff across the upgrade. This is that function as of version 12.
    up: (db) => {
      const open = db.prepare<
        [],
        {
          id: number;
          kind: string;
          owner_kind: string;
          owner_id: string;
          document_id: string | null;
          payload_json: string;
        }
      >(
        `SELECT id, kind, owner_kind, owner_id, document_id, payload_json FROM outbox
         WHERE state <> 'done'`,
      );
      const rekey = db.prepare(
        `UPDATE outbox SET idempotency_key = @key WHERE id = @id AND NOT EXISTS (
           SELECT 1 FROM outbox WHERE idempotency_key = @key AND state <> 'done')`,
      );
      for (const row of open.all()) {
        const p = JSON.parse(row.payload_json) as Record<string, string>;
        const parts: Record<string, (string | undefined)[]> = {
          'create-document': [p.folder],
          'upload-attachment': [p.fileName, p.sha256],
          'replace-attachment': [p.fileName, p.sha256],
          'delete-attachment': [p.attachmentId],
          'assign-status': [p.typeId, p.effectiveDate],
          'delete-document': [],
        };
        const own = [row.kind, row.owner_kind, row.owner_id, row.document_id];
        const key = JSON.stringify([...own, ...(parts[row.kind] ?? [])]);
        rekey.run({ id: row.id, key });
      }
    },
  },
  {
    version: 13,
    name: 'local work found by comparing entity folders with the agreed state, until their syncs end',
    up: (db) =>
      db.exec(`
        CREATE TABLE local_work (
          owner_kind TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id   TEXT    NOT NULL,
          documents  INTEGER NOT NULL CHECK (documents > 0),
          files      INTEGER NOT NULL CHECK (files >= 0),
          found_at   INTEGER NOT NULL,
          PRIMARY KEY (owner_kind, owner_id)
        ) STRICT, WITHOUT ROWID;
      `),
  },
  {
    version: 14,
    name: 'documents docsync deleted in the service, so a folder put back after its delete is created again instead of stuck',
    up: (db) =>
      db.exec(`
        CREATE TABLE deleted_in_service (
          document_id TEXT    NOT NULL PRIMARY KEY,
          owner_kind  TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id    TEXT    NOT NULL,
          folder      TEXT    NOT NULL,
          deleted_at  INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX deleted_in_service_by_owner ON deleted_in_service (owner_kind, owner_id);
      `),
  },
  {
    version: 15,
    name: 'new documents whose folder a pull is building, so a crash before its commit leaves a folder docsync knows as its own',
    up: (db) =>
      db.exec(`
        CREATE TABLE pulls_in_doubt (
          document_id   TEXT    NOT NULL PRIMARY KEY,
          owner_kind    TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id      TEXT    NOT NULL,
          document_json TEXT    NOT NULL,
          started_at    INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX pulls_in_doubt_by_owner ON pulls_in_doubt (owner_kind, owner_id);
      `),
  },
  {
    version: 16,
    name: 'a download again of a folder a person deleted is in doubt too, with the conflict that says why the folder is back',
    up: (db) => db.exec('ALTER TABLE pulls_in_doubt ADD COLUMN conflict_json TEXT'),
  },
  {
    version: 17,
    name: "the status page's entity list and its stalest entity read from indexes: at thousands of entities, sorting them all at each refresh held the event loop",
    up: (db) =>
      db.exec(`
        CREATE INDEX entities_by_name ON entities (name COLLATE NOCASE, kind, id);
        CREATE INDEX cursors_by_success ON cursors (last_success_at, owner_kind, owner_id);
        CREATE INDEX cursors_with_error ON cursors (owner_kind, owner_id) WHERE last_error IS NOT NULL;
      `),
  },
  {
    version: 18,
    name: 'work asked for an entity is a row until a sync of it succeeds, so a restart finds it without guessing; the local work found by a look becomes part of it',
    up: (db) =>
      db.exec(`
        CREATE TABLE entity_work (
          owner_kind    TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
          owner_id      TEXT    NOT NULL,
          reasons       TEXT    NOT NULL,
          lane          TEXT    NOT NULL CHECK (lane IN ('push', 'webhook', 'watcher', 'poll')),
          full_listing  INTEGER NOT NULL DEFAULT 0 CHECK (full_listing IN (0, 1)),
          refresh       INTEGER NOT NULL DEFAULT 0 CHECK (refresh IN (0, 1)),
          seen          INTEGER NOT NULL,
          first_seen_at INTEGER NOT NULL,
          last_seen_at  INTEGER NOT NULL,
          due_at        INTEGER NOT NULL,
          attempts      INTEGER NOT NULL DEFAULT 0,
          last_error    TEXT,
          documents     INTEGER CHECK (documents > 0),
          files         INTEGER CHECK (files >= 0),
          found_at      INTEGER,
          PRIMARY KEY (owner_kind, owner_id)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX entity_work_by_due ON entity_work (due_at);
        INSERT INTO entity_work (owner_kind, owner_id, reasons, lane, seen, first_seen_at,
            last_seen_at, due_at, documents, files, found_at)
          SELECT owner_kind, owner_id, 'local', 'watcher', 1, found_at, found_at, found_at,
            documents, files, found_at FROM local_work;
        DROP TABLE local_work;
      `),
  },
  {
    version: 19,
    name: "a webhook event is an observation on its entity's work row, and is done when that row's sync succeeds",
    up: (db) =>
      db.exec(`
        ALTER TABLE webhook_events ADD COLUMN owner_kind TEXT CHECK (owner_kind IN ('company', 'trust'));
        ALTER TABLE webhook_events ADD COLUMN owner_id TEXT;
        ALTER TABLE webhook_events ADD COLUMN work_seen INTEGER;
        CREATE INDEX webhook_events_by_owner ON webhook_events (owner_kind, owner_id)
          WHERE state = 'received';
      `),
  },
];
