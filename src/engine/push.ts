/**
 * One push through the outbox (docs/state.md): recorded, marked sent, sent, then marked done in
 * the same transaction that writes the document's new base. A failure that leaves the outcome
 * unknown keeps the push `sent` (in doubt) for resolve-in-doubt.ts to settle by reading the
 * service; a definite failure marks it failed. Nothing here ever sends a push twice blindly.
 */

import { backoff, ITEM_BACKOFF } from '../domain/backoff.js';
import {
  DocsyncError,
  LocalChangedError,
  PushRejectedError,
  RunStoppedError,
} from '../domain/errors.js';
import type { LocalFile, OwnerRef } from '../domain/types.js';
import type { UploadSource } from '../domain/upload-source.js';
import { ApiError } from '../remote/api-error.js';
import { inLane } from '../remote/request-lane.js';
import type { TypedPush } from '../state/outbox-payloads.js';
import type { NewPush } from '../state/outbox-repo.js';
import { commitAgreed, type PushCompletion, pushCompleted } from './commit-agreed.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityLease } from './entity-locks.js';

/** The push's kind and payload (outbox-payloads.ts): enough to recognise it after a crash. */
export type PushSpec<T> = TypedPush & PushWork<T>;

interface PushWork<T> {
  readonly owner: OwnerRef;
  /** The owner's lease (the entity's sync holds it): the push's success is committed under it. */
  readonly lease: EntityLease;
  readonly documentId: string | null;
  readonly send: () => Promise<T>;
  /**
   * Local work that must be durable before the push counts as done (linking a folder to the
   * document just created), given the outbox id to note the answer on. If it fails, the push
   * stays in doubt and is settled next cycle.
   */
  readonly settle?: (result: T, pushId: number) => Promise<void>;
  /** The base (or its removal) once the service accepted the push. */
  readonly complete: (result: T) => PushCompletion;
}

export async function push<T>(deps: EngineDeps, spec: PushSpec<T>): Promise<T> {
  const id = openPush(deps, spec);
  const result = await sendPush(deps, id, spec.send);
  await spec.settle?.(result, id);
  await commitAgreed(deps, spec.lease, pushCompleted(id, spec.complete(result)), {
    owner: spec.owner,
    documentId: spec.documentId,
    what: spec.kind,
  });
  return result;
}

/**
 * Records the push, or finds the open one with its key, and says whether it may be sent now: not
 * while it is in doubt, and not while the service's refusal of this very change waits out its
 * backoff. Returns the outbox id.
 */
export function openPush(deps: EngineDeps, push: NewPush): number {
  const { outbox } = deps.state;
  const id = outbox.record(push, deps.now());
  const open = outbox.get(id);
  if (open?.state === 'sent') {
    // In doubt since a crash and not yet settled (the service was unreachable): sending it
    // again could duplicate it, so this change waits for the next cycle's resolution.
    throw new DocsyncError(
      'PUSH_IN_DOUBT',
      `${push.kind} ${open.idempotencyKey} is in doubt; it is checked against the service first.`,
    );
  }
  if (open?.state === 'failed' && open.nextAttemptAt !== null && open.nextAttemptAt > deps.now()) {
    throw new PushRejectedError(
      `${open.lastError ?? 'refused by the service'}; sent again when it changes, or after ${new Date(open.nextAttemptAt).toISOString()}`,
      open.nextAttemptAt,
      false,
    );
  }
  return id;
}

/**
 * Marks the push sent (flushed), then sends it. A refusal (4xx) is final for this content: the
 * push waits out a backoff and a PushRejectedError says so. An outcome the service left unknown
 * keeps the push in doubt; any other failure leaves it due again at once.
 */
export async function sendPush<T>(
  deps: EngineDeps,
  id: number,
  send: () => Promise<T>,
): Promise<T> {
  const { outbox } = deps.state;
  outbox.markSent(id, deps.now());
  try {
    // A push takes the first lane, whatever sync it belongs to: a local change never waits for
    // a poll round.
    return await inLane('push', send);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'OUTCOME_UNKNOWN') throw error;
    // Stopping: a push never sent is closed (the next plan makes it again); one cut in flight
    // stays in doubt, settled by the next run as after a crash. Neither is a failure.
    if (error instanceof RunStoppedError) {
      if (!error.mayHaveApplied) outbox.dropUnsent(id, deps.now());
      throw error;
    }
    // The file to upload is not the one planned any more, found before any of it was sent
    // (a torn read is cut in flight and stays in doubt, above): closed, the next plan decides.
    if (error instanceof LocalChangedError) {
      outbox.dropUnsent(id, deps.now());
      throw error;
    }
    const message = (error as Error).message;
    if (isRefusal(error)) {
      const retryAt = deps.now() + backoff(outbox.get(id)?.attempts ?? 1, ITEM_BACKOFF);
      outbox.markFailed(id, message, retryAt, deps.now());
      throw new PushRejectedError(`refused by the service: ${message}`, retryAt, true, error);
    }
    outbox.markFailed(id, message, deps.now(), deps.now());
    throw error;
  }
}

/**
 * A file's content reached the service: other open pushes of the file (earlier contents the
 * service refused, one recorded and never sent before a crash) are closed, so they no longer show
 * as failed or pending.
 */
export function closeSupersededPushes(
  deps: EngineDeps,
  documentId: string,
  fileName: string,
): void {
  deps.state.outbox.supersede(documentId, fileName, deps.now());
}

/** What an upload that succeeded sent: the bytes its source read to the end, and their hash. */
export function sentFile(source: UploadSource): LocalFile {
  const sent = source.sent();
  if (sent === null)
    throw new DocsyncError(
      'UPLOAD_NOT_READ',
      `${source.label}: the service answered an upload whose file was not read to its end`,
    );
  return sent;
}

/** A 4xx the client did not handle itself (401 refreshes the token, 429 waits and retries). */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.code === 'HTTP_ERROR' &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 401 &&
    error.status !== 429
  );
}

/** A push whose target is already gone counts as done (deleting what is deleted). */
export function isGone(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}
