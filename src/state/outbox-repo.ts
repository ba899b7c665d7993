/**
 * The outbox: every push is recorded before its request is sent and marked done after, so a crash
 * at any point neither loses a change nor creates a duplicate (daemon.md). The protocol:
 *
 *   record (commit) → markSent (commit, flushed) → request → markDone + base write (one commit)
 *
 * - `pending`: recorded, never sent: safe to send without asking anything.
 * - `sent`: the request may or may not have reached the service (in doubt after a crash). The
 *   executor must read the service to find out, using the idempotency key and the record's
 *   `createdAt`, then `markDone` (it happened) or `dropUnsent` (it did not). docs/state.md lists
 *   how each kind is recognised.
 * - `failed`: retried once `nextAttemptAt` has passed; null there means "needs a person".
 * - `done`: kept for the history until pruned.
 *
 * Ids are local integers, not service ids: they order the pushes (a create before its uploads).
 */
import { StateError } from '../domain/errors.js';
import type { OwnerRef } from '../domain/types.js';
import { durably } from './durably.js';
import type { Database } from './open-database.js';
import {
  type OutboxKind,
  type PushPayload,
  parsePushPayload,
  type TypedPush,
} from './outbox-payloads.js';
import { pushIdentity, requestOf } from './push-identity.js';
import { type OwnerColumns, ownerOf, parseJson, toJson } from './row-helpers.js';

export type { OutboxKind } from './outbox-payloads.js';

export type OutboxState = 'pending' | 'sent' | 'done' | 'failed';

interface PushCommon {
  readonly owner: OwnerRef;
  /** Null for a create, and for a push waiting on a create (`dependsOn`). */
  readonly documentId: string | null;
  /** An outbox id that must be done first; its `documentId` is copied here when it is. */
  readonly dependsOn?: number | null;
}

/** A push to record: its kind with what the executor needs to send it (outbox-payloads.ts). */
export type NewPush = PushCommon & TypedPush;

export type OutboxItem = Required<PushCommon> & TypedPush & OutboxProgress;

interface OutboxProgress {
  readonly id: number;
  /**
   * Names the change, not the attempt (push-identity.ts): planning the same change again yields
   * the same key, and finds this push while it is open.
   */
  readonly idempotencyKey: string;
  readonly state: OutboxState;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly nextAttemptAt: number | null;
  /** What the service answered (e.g. the created document), set by `markDone`. */
  readonly result: unknown;
  readonly createdAt: number;
  readonly sentAt: number | null;
  readonly updatedAt: number;
}

export interface OutboxCounts {
  readonly pending: number;
  readonly sent: number;
  readonly failed: number;
}

interface OutboxRow extends OwnerColumns {
  id: number;
  document_id: string | null;
  depends_on: number | null;
  kind: OutboxKind;
  payload_json: string;
  idempotency_key: string;
  state: OutboxState;
  attempts: number;
  last_error: string | null;
  next_attempt_at: number | null;
  result_json: string | null;
  created_at: number;
  sent_at: number | null;
  updated_at: number;
}

const OPEN = "state <> 'done'";

export class OutboxRepo {
  readonly #s;
  readonly #record;
  readonly #done;

  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    this.#s = prepare(db);
    this.#record = db.transaction((push: NewPush, now: number): number => {
      const key = pushIdentity(push);
      const open = this.#s.openByKey.get(key);
      if (open === undefined)
        return Number(this.#s.insert.run(insertParams(push, key, now)).lastInsertRowid);
      const payload = JSON.stringify(push.payload ?? null);
      // Not sent yet, so what it will send is what is planned now (a create's folder renamed
      // meanwhile: its new name), and that is what a crash after sending must look for. A
      // request that changed is a new change for the service: a refusal of the old one does
      // not hold it back.
      if (open.state !== 'sent' && open.payload_json !== payload) {
        const changed = requestOf(typedPush(open)) !== requestOf(push);
        this.#s.refresh.run({ id: open.id, payload, due: changed ? 1 : 0, now });
      }
      return open.id;
    });
    this.#done = db.transaction(
      (id: number, now: number, outcome: { result?: unknown; documentId?: string }) => {
        const { changes } = this.#s.done.run({
          id,
          now,
          result: toJson(outcome.result),
          documentId: outcome.documentId ?? null,
        });
        if (changes === 0) throw wrongState(id, 'done', this.get(id));
        if (outcome.documentId !== undefined) {
          this.#s.fillDependents.run({ documentId: outcome.documentId, now, parent: id });
        }
      },
    );
  }

  /**
   * Records a push before it is sent; an open push of the same change (the same key) is returned
   * instead, with the payload planned now if it was not sent yet.
   */
  record(push: NewPush, now: number = Date.now()): number {
    return this.#record.immediate(push, now);
  }

  get(id: number): OutboxItem | null {
    const row = this.#s.get.get(id);
    return row ? toItem(row) : null;
  }

  /**
   * Commit this before the request leaves: from here on a crash leaves the push in doubt. It is
   * flushed to disk (`durably`), so not even a power cut can forget a push that may have happened.
   */
  markSent(id: number, now: number = Date.now()): void {
    durably(this.#db, () => {
      if (this.#s.sent.run({ now, id }).changes === 0) throw wrongState(id, 'sent', this.get(id));
    });
  }

  /**
   * The push happened. `documentId` (a create's new id) is stored and handed to the pushes that
   * depend on it. To write the base in the same transaction use `StateStore.commitAgreed`.
   */
  markDone(
    id: number,
    outcome: { result?: unknown; documentId?: string } = {},
    now: number = Date.now(),
  ): void {
    this.#done.immediate(id, now, outcome);
  }

  /**
   * A push of several steps (a content replace) finished one: its payload now says so, and a
   * crash from here on resumes after that step instead of repeating it.
   */
  markStep<K extends OutboxKind>(id: number, kind: K, payload: PushPayload<K>, now = Date.now()) {
    const { changes } = this.#s.step.run({ id, kind, payload: JSON.stringify(payload), now });
    if (changes === 0) throw wrongState(id, 'sent', this.get(id));
  }

  /** The push failed; `nextAttemptAt` null means it is not retried until a person looks. */
  markFailed(id: number, error: string, nextAttemptAt: number | null, now = Date.now()): void {
    const { changes } = this.#s.failed.run({ id, error, nextAttemptAt, now });
    if (changes === 0) throw wrongState(id, 'failed', this.get(id));
  }

  /**
   * Closes the open pushes, not in doubt, of one file of a document (an upload or a content
   * replace of `fileName`) once another push of that file got through: an earlier content the
   * service refused, or one recorded and never sent before a crash. They are moot, not work.
   * The file is matched by its name in the payload, whole: never by a prefix of a key.
   */
  supersede(documentId: string, fileName: string, now: number = Date.now()): number {
    return this.#s.supersede.run({ documentId, fileName, now }).changes;
  }

  /**
   * An in-doubt push the service shows no trace of: closed as never sent. Planning works from the
   * folder and the service, not from this list, so the next plan makes the push again if it is
   * still wanted (with the same key, or another way when things changed meanwhile); a push put
   * back to pending instead could wait for ever for a plan that never comes.
   */
  dropUnsent(id: number, now: number = Date.now()): void {
    if (this.#s.dropUnsent.run({ now, id }).changes === 0)
      throw wrongState(id, 'done', this.get(id));
  }

  /** What may be sent now, oldest first: pending, or failed and due, whose parent is done. */
  pending(now: number = Date.now()): OutboxItem[] {
    return this.#s.due.all(now).map(toItem);
  }

  /** Sent but never marked done or failed: after a crash, the outcome is unknown. */
  inDoubt(): OutboxItem[] {
    return this.#s.inDoubt.all().map(toItem);
  }

  /** Failed pushes (retrying or given up), for the status page. */
  failed(): OutboxItem[] {
    return this.#s.failedList.all().map(toItem);
  }

  counts(): OutboxCounts {
    const counts = { pending: 0, sent: 0, failed: 0 };
    for (const { state, n } of this.#s.counts.all()) counts[state] = n;
    return counts;
  }

  /** Deletes done pushes last touched before `before`, except parents of kept ones. */
  pruneDone(before: number): number {
    return this.#s.prune.run({ before }).changes;
  }
}

function prepare(db: Database) {
  return {
    get: db.prepare<[number], OutboxRow>('SELECT * FROM outbox WHERE id = ?'),
    openByKey: db.prepare<[string], OutboxRow>(
      `SELECT * FROM outbox WHERE idempotency_key = ? AND ${OPEN}`,
    ),
    refresh: db.prepare(
      `UPDATE outbox SET payload_json = @payload, updated_at = @now,
         state = CASE WHEN @due THEN 'pending' ELSE state END,
         next_attempt_at = CASE WHEN @due THEN NULL ELSE next_attempt_at END
       WHERE id = @id AND state IN ('pending', 'failed')`,
    ),
    insert: db.prepare(
      `INSERT INTO outbox (owner_kind, owner_id, document_id, depends_on, kind, payload_json,
         idempotency_key, state, created_at, updated_at)
       VALUES (@ownerKind, @ownerId, @documentId, @dependsOn, @kind, @payload, @key, 'pending',
         @now, @now)`,
    ),
    sent: db.prepare(
      `UPDATE outbox SET state = 'sent', attempts = attempts + 1, sent_at = @now, updated_at = @now,
         next_attempt_at = NULL WHERE id = @id AND state IN ('pending', 'failed')`,
    ),
    done: db.prepare(
      `UPDATE outbox SET state = 'done', result_json = @result, updated_at = @now,
         document_id = coalesce(@documentId, document_id), next_attempt_at = NULL
       WHERE id = @id AND ${OPEN}`,
    ),
    fillDependents: db.prepare(
      `UPDATE outbox SET document_id = @documentId, updated_at = @now
       WHERE depends_on = @parent AND document_id IS NULL AND ${OPEN}`,
    ),
    failed: db.prepare(
      `UPDATE outbox SET state = 'failed', last_error = @error, next_attempt_at = @nextAttemptAt,
         updated_at = @now WHERE id = @id AND ${OPEN}`,
    ),
    step: db.prepare(
      `UPDATE outbox SET payload_json = @payload, updated_at = @now
       WHERE id = @id AND kind = @kind AND state = 'sent'`,
    ),
    supersede: db.prepare(
      `UPDATE outbox SET state = 'done', result_json = '{"superseded":true}', updated_at = @now
       WHERE document_id = @documentId AND state IN ('failed', 'pending')
         AND kind IN ('upload-attachment', 'replace-attachment')
         AND payload_json ->> '$.fileName' = @fileName`,
    ),
    dropUnsent: db.prepare(
      `UPDATE outbox SET state = 'done', result_json = '{"sent":false}', updated_at = @now
       WHERE id = @id AND state = 'sent'`,
    ),
    due: db.prepare<[number], OutboxRow>(
      `SELECT o.* FROM outbox o
       WHERE (o.state = 'pending' OR (o.state = 'failed' AND o.next_attempt_at <= ?))
         AND (o.depends_on IS NULL
              OR (SELECT p.state FROM outbox p WHERE p.id = o.depends_on) = 'done')
       ORDER BY o.id`,
    ),
    inDoubt: db.prepare<[], OutboxRow>("SELECT * FROM outbox WHERE state = 'sent' ORDER BY id"),
    failedList: db.prepare<[], OutboxRow>(
      "SELECT * FROM outbox WHERE state = 'failed' ORDER BY id",
    ),
    counts: db.prepare<[], { state: Exclude<OutboxState, 'done'>; n: number }>(
      `SELECT state, count(*) AS n FROM outbox WHERE ${OPEN} GROUP BY state`,
    ),
    prune: db.prepare(
      `DELETE FROM outbox WHERE state = 'done' AND updated_at < @before AND id NOT IN (
         SELECT depends_on FROM outbox
         WHERE depends_on IS NOT NULL AND (state <> 'done' OR updated_at >= @before))`,
    ),
  };
}

function insertParams(push: NewPush, key: string, now: number) {
  return {
    ownerKind: push.owner.kind,
    ownerId: push.owner.id,
    documentId: push.documentId,
    dependsOn: push.dependsOn ?? null,
    kind: push.kind,
    payload: JSON.stringify(push.payload ?? null),
    key,
    now,
  };
}

function wrongState(id: number, to: OutboxState, item: OutboxItem | null): StateError {
  const from = item ? `it is ${item.state}` : 'it does not exist';
  return new StateError('OUTBOX_STATE', `Outbox push ${id} cannot become ${to}: ${from}.`);
}

function toItem(row: OutboxRow): OutboxItem {
  return {
    id: row.id,
    owner: ownerOf(row),
    documentId: row.document_id,
    dependsOn: row.depends_on,
    ...typedPush(row),
    idempotencyKey: row.idempotency_key,
    state: row.state,
    attempts: row.attempts,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    result: parseJson<unknown>(row.result_json),
    createdAt: row.created_at,
    sentAt: row.sent_at,
    updatedAt: row.updated_at,
  };
}

/** The row's kind and payload, checked against the payload's one definition. */
function typedPush(row: OutboxRow): TypedPush {
  try {
    // The schema of `row.kind` accepted the payload: the pair is a TypedPush.
    return {
      kind: row.kind,
      payload: parsePushPayload(row.kind, JSON.parse(row.payload_json)),
    } as TypedPush;
  } catch (error) {
    throw new StateError(
      'OUTBOX_PAYLOAD',
      `Outbox push ${row.id} (${row.kind}) holds a payload docsync cannot read: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
