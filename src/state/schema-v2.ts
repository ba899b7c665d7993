/**
 * Migration 2: the sync state. Times are integer epoch milliseconds (local clock) everywhere,
 * except the service's own `lastUpdatedTimestamp` strings, which are kept exactly as the service
 * wrote them. Owners are (owner_kind, owner_id) because a company id and a trust id may collide.
 * The reasoning behind each table is in docs/state.md. Released with migration 2: never edit it,
 * append a migration instead.
 */
export const SCHEMA_V2 = `
  CREATE TABLE oauth_tokens (
    id                     INTEGER PRIMARY KEY CHECK (id = 1),
    access_token           TEXT,
    access_expires_at      INTEGER,
    refresh_token          TEXT,
    scope                  TEXT,
    obtained_at            INTEGER,
    seed_sha256            TEXT
  ) STRICT;

  CREATE TABLE entities (
    kind            TEXT    NOT NULL CHECK (kind IN ('company', 'trust')),
    id              TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    number          TEXT,
    business_number TEXT,
    trust_type      TEXT,
    raw_json        TEXT    NOT NULL CHECK (json_valid(raw_json)),
    folder          TEXT,
    matched_by      TEXT    CHECK (matched_by IN ('entity-json', 'number', 'abn', 'name', 'created')),
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (kind, id)
  ) STRICT;
  CREATE UNIQUE INDEX entities_by_folder ON entities (folder) WHERE folder IS NOT NULL;

  CREATE TABLE unmatched_folders (
    folder   TEXT    PRIMARY KEY,
    kind     TEXT    NOT NULL CHECK (kind IN ('company', 'trust')),
    reason   TEXT    NOT NULL,
    seen_at  INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE cursors (
    owner_kind             TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
    owner_id               TEXT    NOT NULL,
    cursor                 TEXT,
    last_success_at        INTEGER,
    last_full_reconcile_at INTEGER,
    last_error             TEXT,
    last_error_at          INTEGER,
    PRIMARY KEY (owner_kind, owner_id)
  ) STRICT;

  CREATE TABLE base_documents (
    id                     TEXT    PRIMARY KEY,
    owner_kind             TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
    owner_id               TEXT    NOT NULL,
    name                   TEXT    NOT NULL,
    document_date          TEXT    NOT NULL,
    status_id              TEXT,
    status_type_id         TEXT,
    status_date            TEXT,
    last_updated_timestamp TEXT    NOT NULL,
    folder                 TEXT    NOT NULL,
    attachments_json       TEXT    NOT NULL CHECK (json_valid(attachments_json)),
    updated_at             INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX base_documents_by_owner ON base_documents (owner_kind, owner_id);

  CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_kind      TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
    owner_id        TEXT    NOT NULL,
    document_id     TEXT,
    depends_on      INTEGER REFERENCES outbox (id),
    kind            TEXT    NOT NULL CHECK (kind IN ('create-document', 'upload-attachment',
                      'delete-attachment', 'assign-status', 'delete-document')),
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
  -- One open push per key: planning the same change again finds the open one instead.
  CREATE UNIQUE INDEX outbox_open_by_key ON outbox (idempotency_key) WHERE state <> 'done';
  CREATE INDEX outbox_by_state ON outbox (state, id);
  CREATE INDEX outbox_by_document ON outbox (document_id) WHERE document_id IS NOT NULL;
  CREATE INDEX outbox_by_parent ON outbox (depends_on) WHERE depends_on IS NOT NULL;

  CREATE TABLE problems (
    item_key        TEXT    PRIMARY KEY,
    owner_kind      TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
    owner_id        TEXT    NOT NULL,
    document_id     TEXT,
    path            TEXT,
    reason          TEXT    NOT NULL,
    attempts        INTEGER NOT NULL,
    first_seen_at   INTEGER NOT NULL,
    last_seen_at    INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    CHECK (document_id IS NOT NULL OR path IS NOT NULL)
  ) STRICT;
  CREATE INDEX problems_by_next_attempt ON problems (next_attempt_at);

  CREATE TABLE conflicts (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_kind    TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
    owner_id      TEXT    NOT NULL,
    document_id   TEXT    NOT NULL,
    attachment_id TEXT,
    copy_path     TEXT    NOT NULL,
    winner        TEXT    NOT NULL CHECK (winner IN ('local', 'remote')),
    detail        TEXT,
    occurred_at   INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX conflicts_by_time ON conflicts (occurred_at);

  CREATE TABLE webhook_events (
    event_id          TEXT    PRIMARY KEY,
    entity_id         TEXT    NOT NULL,
    sub_type          TEXT    NOT NULL,
    document_ids_json TEXT    NOT NULL CHECK (json_valid(document_ids_json)),
    raw_body          TEXT    NOT NULL,
    received_at       INTEGER NOT NULL,
    state             TEXT    NOT NULL CHECK (state IN ('received', 'done', 'failed')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    last_error        TEXT,
    updated_at        INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX webhook_events_by_state ON webhook_events (state, received_at);

  CREATE TABLE cycles (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    trigger        TEXT    NOT NULL CHECK (trigger IN ('cron', 'webhook', 'watcher', 'once')),
    owner_kind     TEXT    CHECK (owner_kind IN ('company', 'trust')),
    owner_id       TEXT,
    full_reconcile INTEGER NOT NULL CHECK (full_reconcile IN (0, 1)),
    started_at     INTEGER NOT NULL,
    finished_at    INTEGER,
    result         TEXT    CHECK (result IN ('ok', 'partial', 'safety-stop', 'error', 'interrupted')),
    counts_json    TEXT    CHECK (counts_json IS NULL OR json_valid(counts_json)),
    error          TEXT,
    CHECK ((owner_kind IS NULL) = (owner_id IS NULL))
  ) STRICT;
  CREATE INDEX cycles_by_result ON cycles (result, id);

  CREATE TABLE status_types (
    id       TEXT    PRIMARY KEY,
    name     TEXT    NOT NULL,
    position INTEGER NOT NULL
  ) STRICT;
`;
