import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/remote/api-error.js';
import { retryDelay } from '../../src/remote/retry-delay.js';
import { parseRetryAfter } from '../../src/remote/service-http.js';

const http = (status: number, retryAfterSeconds?: number) =>
  new ApiError('HTTP_ERROR', `answered ${status}`, { route: 'GET /x', status, retryAfterSeconds });
const network = (networkCode: string) =>
  new ApiError('NETWORK', networkCode, { route: 'GET /x', networkCode });
const policy = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 30_000 };

describe('retryDelay(error, attempt, random)', () => {
  it.each([
    ['500, attempt 1, no jitter', http(500), 1, 0, 250],
    ['503, attempt 1, full jitter', http(503), 1, 0.999, 499],
    ['502, attempt 3', http(502), 3, 0, 1000],
    ['504, attempt 5', http(504), 5, 0.5, 6000],
    ['408 request timeout', http(408), 1, 0, 250],
    ['connection reset', network('ECONNRESET'), 2, 0, 500],
    ['timeout', network('ETIMEDOUT'), 1, 0, 250],
    ['truncated download', new ApiError('TRUNCATED', 'short', { route: 'GET <link>' }), 1, 0, 250],
    ['429 honours Retry-After exactly, plus spread', http(429, 7), 1, 0, 7000],
    ['429 spread is under a quarter second', http(429, 2), 1, 0.999, 2249],
    ['growth stops at the cap', http(500), 10, 0, 0],
  ])('%s', (_name, error, attempt, random, expected) => {
    expect(retryDelay(error, attempt, random, { ...policy, maxAttempts: 9 })).toBe(
      attempt >= 9 ? 0 : expected,
    );
  });

  it('caps the exponential delay at maxDelayMs', () => {
    expect(retryDelay(http(500), 8, 0.999, { ...policy, maxAttempts: 20 })).toBeLessThan(30_000);
    expect(retryDelay(http(500), 8, 0, { ...policy, maxAttempts: 20 })).toBe(15_000);
  });

  it.each([
    ['400 bad request', http(400)],
    ['401 (refresh is the cure, not waiting)', http(401)],
    ['403 forbidden', http(403)],
    ['404 unknown id', http(404)],
    ['409 conflict', http(409)],
    ['413 too large', http(413)],
    ['422 validation', http(422)],
    ['malformed response', new ApiError('MALFORMED_RESPONSE', 'x', { route: 'GET /x' })],
    ['outcome unknown', new ApiError('OUTCOME_UNKNOWN', 'x', { route: 'POST /x' })],
    ['not an ApiError', new Error('bug')],
  ])('does not retry %s', (_name, error) => {
    expect(retryDelay(error, 1, 0.5, policy)).toBe(0);
  });

  it('gives up after maxAttempts', () => {
    expect(retryDelay(http(503), 5, 0, policy)).toBeGreaterThan(0);
    expect(retryDelay(http(503), 6, 0, policy)).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['3', 3],
    [' 120 ', 120],
    ['Wed, 21 Oct 2015 07:28:05 GMT', 5],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s → %s', (header, expected) => {
    expect(parseRetryAfter(header, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(expected);
  });
});
