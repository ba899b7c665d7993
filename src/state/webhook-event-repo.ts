/**
 * Webhook messages, stored before the receiver answers 200 (daemon.md): the answer promises the
 * message will be worked on, so it must survive a crash right after. `event_id` is the primary
 * key, which makes "the same eventId twice is done once" a property of the table: the second
 * `add` inserts nothing and returns false, and the receiver answers 200 without work.
 *
 * An event of an entity docsync knows is an observation on that entity's work row
 * (entity-work-repo.ts): `owner` and `work_seen` link it to the observation it made. It is done
 * when a sync of the entity that started after that observation succeeded, and counts an attempt
 * when one failed, together with the row (`StateStore.settleSync`); after `MAX_EVENT_ATTEMPTS`
 * (hours of retries) it is left `failed`, while the row's own retries go on. An event whose
 * entity is not known yet stays unlinked until the entity list is read again; `next_attempt_at`
 * is when a list that could not be read is tried again. The deletions an event named are kept
 * apart until applied (announced-deletion-repo.ts). Rows are kept (see `prune`) well past the
 * service's retry schedule (about 13 minutes in all, api.md) so late duplicates are still
 * recognised.
 */
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { ownerParams } from './row-helpers.js';

export const MAX_EVENT_ATTEMPTS = 20;

export type WebhookEventState = 'received' | 'done' | 'failed';

export interface NewWebhookEvent {
  readonly eventId: string;
  /** Company or trust id, as sent; the message does not say which kind. */
  readonly entityId: string;
  /** '' for a message that carried none. */
  readonly subType: string;
  readonly documentIds: readonly string[];
  /** The body exactly as received (the signature was computed over it). */
  readonly rawBody: string;
  readonly receivedAt: number;
}

export interface WebhookEvent extends NewWebhookEvent {
  readonly state: WebhookEventState;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly updatedAt: number;
  /** When a failed event is tried again; null: as soon as it is offered. */
  readonly nextAttemptAt: number | null;
  /** The entity whose work row it is part of; null while its entity is not known. */
  readonly owner: OwnerRef | null;
  /** The number of the observation it made on that row. */
  readonly workSeen: number | null;
}

/** An event a settlement counted an attempt of: its attempts and state after. */
export interface EventAttempt {
  readonly eventId: string;
  readonly attempts: number;
  readonly state: WebhookEventState;
}

interface EventRow {
  event_id: string;
  entity_id: string;
  sub_type: string;
  document_ids_json: string;
  raw_body: string;
  received_at: number;
  state: WebhookEventState;
  attempts: number;
  last_error: string | null;
  updated_at: number;
  next_attempt_at: number | null;
  owner_kind: OwnerRef['kind'] | null;
  owner_id: string | null;
  work_seen: number | null;
}

export class WebhookEventRepo {
  readonly #insert;
  readonly #get;
  readonly #done;
  readonly #failed;
  readonly #pending;
  readonly #link;
  readonly #settleDone;
  readonly #settleAllDone;
  readonly #settleFailed;
  readonly #settleMoot;
  readonly #prune;
  readonly #countPending;

  constructor(db: Database) {
    this.#insert = db.prepare(
      `INSERT INTO webhook_events (event_id, entity_id, sub_type, document_ids_json, raw_body,
         received_at, state, updated_at)
       VALUES (@eventId, @entityId, @subType, @documentIds, @rawBody, @receivedAt, 'received',
         @receivedAt)
       ON CONFLICT (event_id) DO NOTHING`,
    );
    this.#get = db.prepare<[string], EventRow>('SELECT * FROM webhook_events WHERE event_id = ?');
    this.#done = db.prepare(
      `UPDATE webhook_events SET state = 'done', attempts = attempts + 1, updated_at = ?
       WHERE event_id = ?`,
    );
    this.#failed = db.prepare(
      `UPDATE webhook_events SET attempts = attempts + 1, last_error = @error, updated_at = @now,
         next_attempt_at = @nextAttemptAt,
         state = CASE WHEN attempts + 1 >= @max THEN 'failed' ELSE 'received' END
       WHERE event_id = @eventId AND state = 'received'`,
    );
    const linked = `owner_kind = @ownerKind AND owner_id = @ownerId AND state = 'received'`;
    this.#link = db.prepare(
      `UPDATE webhook_events SET owner_kind = @ownerKind, owner_id = @ownerId, work_seen = @seen,
         next_attempt_at = NULL WHERE event_id = @eventId`,
    );
    this.#settleDone = db.prepare<Record<string, unknown>, { event_id: string }>(
      `UPDATE webhook_events SET state = 'done', attempts = attempts + 1, updated_at = @now
       WHERE ${linked} AND work_seen <= @seen RETURNING event_id`,
    );
    this.#settleAllDone = db.prepare<Record<string, unknown>, { event_id: string }>(
      `UPDATE webhook_events SET state = 'done', attempts = attempts + 1, updated_at = @now
       WHERE state = 'received' AND work_seen <= @seen RETURNING event_id`,
    );
    this.#settleFailed = db.prepare<Record<string, unknown>, EventAttemptRow>(
      `UPDATE webhook_events SET attempts = attempts + 1, last_error = @error, updated_at = @now,
         next_attempt_at = @nextAttemptAt,
         state = CASE WHEN attempts + 1 >= @max THEN 'failed' ELSE 'received' END
       WHERE ${linked} AND work_seen <= @seen RETURNING event_id, attempts, state`,
    );
    this.#settleMoot = db.prepare(
      `UPDATE webhook_events SET state = 'done', updated_at = @now WHERE ${linked}`,
    );
    this.#pending = db.prepare<[], EventRow>(
      "SELECT * FROM webhook_events WHERE state = 'received' ORDER BY received_at, event_id",
    );
    this.#countPending = db
      .prepare<[], number>("SELECT count(*) FROM webhook_events WHERE state = 'received'")
      .pluck();
    this.#prune = db.prepare(
      "DELETE FROM webhook_events WHERE state <> 'received' AND received_at < ?",
    );
  }

  /**
   * Stores the message, inside the transaction `StateStore.receiveWebhookEvent` commits durably
   * before the 200. False when this eventId was already stored (a redelivery).
   */
  add(event: NewWebhookEvent): boolean {
    const row = { ...event, documentIds: JSON.stringify(event.documentIds) };
    return this.#insert.run(row).changes === 1;
  }

  get(eventId: string): WebhookEvent | null {
    const row = this.#get.get(eventId);
    return row ? toEvent(row) : null;
  }

  markDone(eventId: string, now: number = Date.now()): void {
    this.#done.run(now, eventId);
  }

  /**
   * Counts a failed attempt, to be tried again at `nextAttemptAt`; after `max` attempts
   * (`MAX_EVENT_ATTEMPTS`) the event is left to the scheduled cycles.
   */
  markFailed(
    eventId: string,
    error: string,
    now: number = Date.now(),
    nextAttemptAt: number = now,
    max: number = MAX_EVENT_ATTEMPTS,
  ): void {
    this.#failed.run({ eventId, error, now, nextAttemptAt, max });
  }

  /** Ties the event to the observation `seen` it made on its entity's work row. */
  link(eventId: string, owner: OwnerRef, seen: number): void {
    this.#link.run({ eventId, ...ownerParams(owner), seen });
  }

  /**
   * A sync of `owner` that started at observation `seen` succeeded: the events it answered (the
   * entity's, observed up to then) are done. Their ids.
   */
  settleDone(owner: OwnerRef, seen: number, now: number): string[] {
    return this.#settleDone.all({ ...ownerParams(owner), seen, now }).map((r) => r.event_id);
  }

  /** A sync of every entity that started at `seen` succeeded: every event it answered is done. */
  settleAllDone(seen: number, now: number): string[] {
    return this.#settleAllDone.all({ seen, now }).map((r) => r.event_id);
  }

  /**
   * A sync of `owner` that started at `seen` failed: each event it was to answer counts an
   * attempt, and after `max` is left `failed`.
   */
  settleFailed(
    owner: OwnerRef,
    seen: number,
    failure: { readonly error: string; readonly now: number; readonly nextAttemptAt: number },
    max: number = MAX_EVENT_ATTEMPTS,
  ): EventAttempt[] {
    return this.#settleFailed
      .all({ ...ownerParams(owner), seen, max, ...failure })
      .map((r) => ({ eventId: r.event_id, attempts: r.attempts, state: r.state }));
  }

  /** The entity is forgotten: what its events asked for is moot, and they are done. */
  settleMoot(owner: OwnerRef, now: number): void {
    this.#settleMoot.run({ ...ownerParams(owner), now });
  }

  /** Received and not yet done, oldest first: what a restarted daemon works on. */
  pendingEvents(): WebhookEvent[] {
    return this.#pending.all().map(toEvent);
  }

  countPending(): number {
    return this.#countPending.get() ?? 0;
  }

  /** Forgets finished events received before `before` (keep at least a day for duplicates). */
  prune(before: number): number {
    return this.#prune.run(before).changes;
  }
}

function toEvent(row: EventRow): WebhookEvent {
  return {
    eventId: row.event_id,
    entityId: row.entity_id,
    subType: row.sub_type,
    documentIds: JSON.parse(row.document_ids_json) as string[],
    rawBody: row.raw_body,
    receivedAt: row.received_at,
    state: row.state,
    attempts: row.attempts,
    lastError: row.last_error,
    updatedAt: row.updated_at,
    nextAttemptAt: row.next_attempt_at,
    owner: row.owner_kind === null ? null : { kind: row.owner_kind, id: row.owner_id! },
    workSeen: row.work_seen,
  };
}

interface EventAttemptRow {
  event_id: string;
  attempts: number;
  state: WebhookEventState;
}
