/**
 * When to try a request again, as one pure function of (error, attempt) in the manner of got's
 * calculateRetryDelay: 0 means "do not retry". Randomness comes in as an argument so the
 * function stays pure and its table of cases can be tested exactly.
 */
import { backoff } from '../domain/backoff.js';
import { ApiError } from './api-error.js';

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/** Statuses that say "not now" rather than "never": 408 timeout, 429 rate limit, 5xx. */
const TRANSIENT_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * @param attempt the attempt that just failed, from 1
 * @param random a number in [0, 1) for the jitter
 */
export function retryDelay(
  error: unknown,
  attempt: number,
  random: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): number {
  if (!(error instanceof ApiError) || attempt >= policy.maxAttempts) return 0;
  if (!isTransient(error)) return 0;
  if (error.retryAfterSeconds !== undefined) {
    // The service said how long; honour it exactly, plus a little spread so waiting clients
    // do not all return in the same millisecond.
    return error.retryAfterSeconds * 1000 + Math.floor(random * 250);
  }
  // The program's backoff with "equal jitter": half fixed, half random.
  const ceiling = backoff(attempt, { firstMs: policy.baseDelayMs, capMs: policy.maxDelayMs });
  return Math.floor(ceiling / 2 + (random * ceiling) / 2);
}

function isTransient(error: ApiError): boolean {
  switch (error.code) {
    case 'NETWORK':
    case 'TRUNCATED':
      return true;
    case 'HTTP_ERROR':
      return error.status !== undefined && TRANSIENT_STATUSES.has(error.status);
    default:
      // MALFORMED_RESPONSE will be malformed again; OUTCOME_UNKNOWN must be resolved by reading.
      return false;
  }
}
