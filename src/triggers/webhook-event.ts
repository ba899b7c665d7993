/**
 * What the receiver hands to its `onEvent` callback, and the callback's contract. Built from the
 * stored row, not the request, so an event re-offered after a restart looks exactly like a
 * fresh one.
 */
import type { WebhookEvent } from '../state/webhook-event-repo.js';
import type { EventSubType } from './document-change.js';

export interface DocumentChangeEvent {
  readonly eventId: string;
  /** The company or trust id as sent; the message does not say which kind it is. */
  readonly entityId: string;
  /**
   * `statusChange` means the same as `newStatus` (api.md); null for a message without one,
   * which asks for a sync of its entity like any other.
   */
  readonly subType: EventSubType | null;
  /** The message's tenants of type `documentId`. */
  readonly documentIds: readonly string[];
  readonly receivedAt: number;
  /** 1 on the first offer; counts on through retries and restarts. */
  readonly attempt: number;
}

/**
 * Hears of one recorded event: a new one once the service has had its 200, and at start each one
 * left pending that is not part of its entity's work yet. The work is the caller's (the daemon
 * asks for the entity's sync, daemon/webhook-work.ts); the event is settled in the state when
 * that sync ends, not when this returns.
 */
export type OnDocumentChange = (event: DocumentChangeEvent) => void;

export function toDocumentChangeEvent(stored: WebhookEvent): DocumentChangeEvent {
  return {
    eventId: stored.eventId,
    entityId: stored.entityId,
    // Kept as '' in the state (its column takes no null): a message without a subtype.
    subType: stored.subType === '' ? null : (stored.subType as EventSubType),
    documentIds: stored.documentIds,
    receivedAt: stored.receivedAt,
    attempt: stored.attempts + 1,
  };
}
