/**
 * The state database as it is on disk, read without changing it: whether it exists, and its
 * schema version against the one this docsync writes. `docsync check` looks here before it
 * opens the file, because opening creates a missing file and migrates an older one, and a
 * check changes nothing (an older file may belong to a daemon of the previous version that is
 * still running).
 */
import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';
import { schemaVersion } from './open-database.js';
import { explainStateFailure } from './state-failure.js';

export type StateFileStatus =
  | { readonly kind: 'missing' }
  | { readonly kind: 'current'; readonly version: number }
  | { readonly kind: 'older' | 'newer'; readonly version: number; readonly known: number };

export function inspectStateFile(file: string): StateFileStatus {
  if (!existsSync(file)) return { kind: 'missing' };
  const known = MIGRATIONS.at(-1)?.version ?? 0;
  let version: number;
  try {
    const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    try {
      version = schemaVersion(db);
    } finally {
      db.close();
    }
  } catch (error) {
    throw explainStateFailure(error, file);
  }
  if (version === known) return { kind: 'current', version };
  return { kind: version < known ? 'older' : 'newer', version, known };
}
