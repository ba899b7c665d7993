/**
 * The state's durability policy (docs/state.md "Durability"). The database runs with
 * `synchronous = NORMAL`: a commit survives a crash of the process at once, and a power cut may
 * roll the file back to an earlier commit, never to a torn one. That earlier state is one the
 * engine already recovers from, because every local write and every pull is recognised again
 * from the folder and the service (a file already in place, a folder already linked by id).
 *
 * What cannot be recognised again is a promise made to the outside world: a push about to be
 * sent (the outbox must know it may have happened), a rotated refresh token (the old one is
 * dead), a webhook answered 200 (the service will not send it again). Those commit through
 * `durably`, which syncs the write-ahead log, and with it every commit before, before returning.
 * A FULL commit costs a disk flush on the event loop; a NORMAL one far less.
 */
import type { Database } from './open-database.js';

export function durably<T>(db: Database, fn: () => T): T {
  // The pragma cannot change inside a transaction, and an outer transaction would decide the
  // commit anyway: a durable step nested in one is a bug in the caller, not a slower commit.
  if (db.inTransaction) throw new Error('durably() must not run inside an open transaction');
  db.pragma('synchronous = FULL');
  try {
    return db.transaction(fn).immediate();
  } finally {
    db.pragma('synchronous = NORMAL');
  }
}
