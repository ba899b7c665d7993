/**
 * A store seeded by today's code is at today's schema, which a baseline built from an older
 * commit refuses (a newer docsync wrote it). A store seeded as a first sync leaves it has no push
 * open and nothing in the tables the later migrations made, so it goes back to `version` by
 * dropping those tables (and the indexes they added): nothing is lost. Columns later migrations added stay; the older code
 * does not name them. Refuses a store with anything in them.
 */
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/state/migrations.js';

export function asBaselineSchema(
  stateFile: string,
  version: number,
  laterTables: readonly string[],
  laterIndexes: readonly string[] = [],
  /** Makes again, empty, what the older code had and later migrations dropped. */
  olderTables?: (db: Database.Database) => void,
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
    olderTables?.(db);
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
    MIGRATIONS.find((m) => m.version === 13)!.up,
  );
}
