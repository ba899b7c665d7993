/**
 * Invariant 13, checked as each cycle ends: an item in error waits before it is tried again as
 * docs/state.md promises, one minute after its first failure, doubling with each, at most six
 * hours. Written out here from the docs, not imported from the code it judges.
 */
import type { Problem } from '../../src/state/problem-repo.js';

export const RETRY_AS_PROMISED =
  'an item in error waits as promised: a minute, doubling per failure, at most six hours';

const MINUTE = 60_000;
const CAP = 6 * 60 * MINUTE;

/** The wait the docs promise after the `attempts`-th failure in a row. */
export function promisedWait(attempts: number): number {
  let wait = MINUTE;
  for (let n = 1; n < attempts && wait < CAP; n++) wait *= 2;
  return Math.min(wait, CAP);
}

/** Each item waiting out a backoff whose wait is not the promised one, described. */
export function retriesOffPromise(problems: readonly Problem[]): string[] {
  const off: string[] = [];
  for (const p of problems) {
    const wait = p.nextAttemptAt - p.lastSeenAt;
    // Recorded without a backoff (a condition, not a failure): due at once.
    if (wait <= 0) continue;
    const promised = promisedWait(p.attempts);
    if (wait !== promised)
      off.push(
        `${p.documentId ?? p.path ?? p.key} after ${p.attempts} failures waits ${wait / 1000} s, not ${promised / 1000} s`,
      );
  }
  return off;
}
