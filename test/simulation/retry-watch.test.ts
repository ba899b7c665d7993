/** Invariant 13's rule (retry-watch.ts): the waits the docs promise, and an item off them. */
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/state/problem-repo.js';
import { promisedWait, retriesOffPromise } from './retry-watch.js';

const problem = (attempts: number, wait: number): Problem => ({
  key: `k${attempts}`,
  owner: { kind: 'company', id: 'c1' },
  documentId: '1000001',
  path: null,
  reason: 'refused',
  attempts,
  firstSeenAt: 0,
  lastSeenAt: 1_000,
  nextAttemptAt: 1_000 + wait,
  planFingerprint: 'f',
});

describe('an item in error waits as promised', () => {
  it('a minute after the first failure, doubling, at most six hours', () => {
    expect([1, 2, 3, 4].map(promisedWait)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(promisedWait(40)).toBe(6 * 3_600_000);
  });

  it('finds an item that waits one doubling less, and passes one due at once', () => {
    expect(retriesOffPromise([problem(1, 60_000), problem(3, 240_000), problem(2, 0)])).toEqual([]);
    expect(retriesOffPromise([problem(2, 60_000)])).toEqual([
      '1000001 after 2 failures waits 60 s, not 120 s',
    ]);
  });
});
