/**
 * A store seeded by today's code is at today's schema, which a baseline built from an older
 * commit refuses (a newer docsync wrote it). A store seeded as a first sync leaves it has no push
 * open and nothing in the tables the later migrations made, so it goes back to `version` by
 * dropping those tables (and the indexes they added): nothing is lost. Columns later migrations added stay; the older code
 * does not name them. Refuses a store with anything in them.
 */
import Database from 'better-sqlite3';

export function asBaselineSchema(
  stateFile: string,
  version: number,
  laterTables: readonly string[],
  laterIndexes: readonly string[] = [],
  /** Tables the older code had that later migrations dropped, made again empty. */
  olderTables = '',
): void {
  const db = new Database(stateFile);
  try {
    for (const table of ['outbox', ...laterTables]) {
      const rows = db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number };
      if (rows.n > 0)
        throw new Error(
          `the seeded store has ${table} rows: it cannot go back to schema ${version}`,
        );
    }
    for (const table of laterTables) db.exec(`DROP TABLE ${table}`);
    // An index the older code never made would only speed it: measured as it shipped.
    for (const index of laterIndexes) db.exec(`DROP INDEX IF EXISTS ${index}`);
    if (olderTables) db.exec(olderTables);
    db.pragma(`user_version = ${version}`);
  } finally {
    db.close();
  }
}

/**
 * The store as main before the request governor (977d891, schema 14) reads it: migrations 15
 * to 19 (`pulls_in_doubt`, its `conflict_json`, the status page's indexes, the work rows that
 * replaced 13's `local_work`, the webhook events' links) came after it.
 */
export function asSchemaBeforeGovernor(stateFile: string): void {
  asBaselineSchema(
    stateFile,
    14,
    ['pulls_in_doubt', 'entity_work'],
    ['entities_by_name', 'cursors_by_success', 'cursors_with_error', 'webhook_events_by_owner'],
    `CREATE TABLE local_work (
       owner_kind TEXT    NOT NULL CHECK (owner_kind IN ('company', 'trust')),
       owner_id   TEXT    NOT NULL,
       documents  INTEGER NOT NULL CHECK (documents > 0),
       files      INTEGER NOT NULL CHECK (files >= 0),
       found_at   INTEGER NOT NULL,
       PRIMARY KEY (owner_kind, owner_id)
     ) STRICT, WITHOUT ROWID;`,
  );
}
