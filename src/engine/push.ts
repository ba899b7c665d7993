/**
 * One push through the outbox (docs/state.md): recorded, marked sent, sent, then marked done in
 * the same transaction that writes the document's new base. A failure that leaves the outcome
 * unknown keeps the push `sent` (in doubt) for resolve-in-doubt.ts to settle by reading the
 * service; a definite failure marks it failed. Nothing here ever sends a push twice blindly.
 */
import { DocsyncError } from '../domain/errors.js';
import type { OwnerRef } from '../domain/types.js';
import { ApiError } from '../remote/api-error.js';
import type { TypedPush } from '../state/outbox-payloads.js';
import type { PushCompletion } from '../state/state-store.js';
import type { EngineDeps } from './engine-deps.js';

/** The push's kind and payload (outbox-payloads.ts): enough to recognise it after a crash. */
export type PushSpec<T> = TypedPush & PushWork<T>;

interface PushWork<T> {
  readonly owner: OwnerRef;
  readonly documentId: string | null;
  /** Names the change, not the attempt. */
  readonly key: string;
  readonly send: () => Promise<T>;
  /**
   * Local work that must be durable before the push counts as done (linking a folder to the
   * document just created). If it fails, the push stays in doubt and is settled next cycle.
   */
  readonly settle?: (result: T) => Promise<void>;
  /** The base (or its removal) once the service accepted the push. */
  readonly complete: (result: T) => PushCompletion;
}

export async function push<T>(deps: EngineDeps, spec: PushSpec<T>): Promise<T> {
  const { outbox } = deps.state;
  const id = outbox.record({ ...spec, idempotencyKey: spec.key }, deps.now());
  if (outbox.get(id)?.state === 'sent') {
    // In doubt since a crash and not yet settled (the service was unreachable): sending it
    // again could duplicate it, so this change waits for the next cycle's resolution.
    throw new DocsyncError(
      'PUSH_IN_DOUBT',
      `${spec.kind} ${spec.key} is in doubt; it is checked against the service first.`,
    );
  }
  outbox.markSent(id, deps.now());
  let result: T;
  try {
    result = await spec.send();
  } catch (error) {
    const unknown = error instanceof ApiError && error.code === 'OUTCOME_UNKNOWN';
    if (!unknown) outbox.markFailed(id, (error as Error).message, null, deps.now());
    throw error;
  }
  await spec.settle?.(result);
  deps.state.completePush(id, spec.complete(result), deps.now());
  return result;
}

/** A push whose target is already gone counts as done (deleting what is deleted). */
export function isGone(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}
