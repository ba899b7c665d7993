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
 * Works on one event (the engine: a targeted sync of that entity or document). Called after the
 * service has had its 200; an entity's events one at a time, oldest first, different entities'
 * side by side. Resolve only when the work succeeded → the event is done; reject → the attempt
 * is counted and the event is offered again after a backoff, up to `MAX_EVENT_ATTEMPTS`, then
 * left to the scheduled cycles. `signal` aborts when the receiver closes: stop early and reject
 * (or reject with `SyncNotDoneError('SYNC_STOPPED')`), and the event stays pending, uncounted.
 */
export type OnDocumentChange = (
  event: DocumentChangeEvent,
  context: { readonly signal: AbortSignal },
) => Promise<void> | void;

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
