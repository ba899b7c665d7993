/**
 * The state database as it is on disk, read without changing it: whether it exists, and its
 * schema version against the one this docsync writes. `docsync check` looks here before it
 * opens the file, because opening creates a missing file and migrates an older one, and a
 * check changes nothing (an older file may belong to a daemon of the previous version that is
 * still running).
 */
import BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';
import { missingState, schemaVersion } from './open-database.js';
import { explainStateFailure } from './state-failure.js';

export type StateFileStatus =
  /** `sentence`: what every command that never creates the file says about it. */
  | { readonly kind: 'missing'; readonly sentence: string }
  | { readonly kind: 'current'; readonly version: number }
  | { readonly kind: 'older' | 'newer'; readonly version: number; readonly known: number };

export function inspectStateFile(file: string): StateFileStatus {
  const missing = missingState(file);
  if (missing) return { kind: 'missing', sentence: missing.message };
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
