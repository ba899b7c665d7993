import { describe, expect, it } from 'vitest';
import { ITEM_BACKOFF } from '../../src/domain/backoff.js';
import type { ProblemItem } from '../../src/state/problem-repo.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';

const state = useStateStore();
const MINUTE = 60_000;

const bad: ProblemItem = { owner: TRUST, documentId: '1075468' };
const good: ProblemItem = { owner: TRUST, documentId: '1075469' };
const newFolder: ProblemItem = { owner: COMPANY, path: 'Companies/Acme/2024-05-01 Minutes' };

describe('items in error', () => {
  it('backs a failing item off, doubling and capped, while other items are not touched', () => {
    const { problems } = state.open();
    let now = 0;
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 12; attempt++) {
      const problem = problems.record(bad, 'upload refused: 413', now);
      waits.push(problem.nextAttemptAt - now);
      expect(problems.get(good)).toBeNull();
      now = problem.nextAttemptAt;
    }
    expect(waits.slice(0, 4)).toEqual([1, 2, 4, 8].map((m) => m * MINUTE));
    expect(Math.max(...waits)).toBe(ITEM_BACKOFF.capMs);
    expect(waits.at(-1)).toBe(ITEM_BACKOFF.capMs);
    expect(problems.get(bad)).toMatchObject({
      attempts: 12,
      firstSeenAt: 0,
      reason: 'upload refused: 413',
    });
  });

  it('records a condition without backoff, and with it the plan that failed', () => {
    const { problems } = state.open();
    const found = problems.record(newFolder, 'moved elsewhere', 5, { backoff: false });
    expect(found.nextAttemptAt).toBe(5);
    problems.record(bad, 'failed', 0, { backoff: true, planFingerprint: 'abc' });
    expect(problems.get(bad)).toMatchObject({ planFingerprint: 'abc', nextAttemptAt: MINUTE });
    expect(problems.clearKeys([found.key, 'no such key'])).toBe(1);
    expect(problems.list().map((p) => p.key)).toEqual(['document:1075468']);
  });

  it('lists everything in error, by document or by path', () => {
    const { problems } = state.open();
    problems.record(bad, 'first', 0);
    problems.record(newFolder, 'name too long', 10 * MINUTE);
    expect(problems.list()).toMatchObject([
      { owner: TRUST, documentId: '1075468', path: null, attempts: 1 },
      { owner: COMPANY, documentId: null, path: 'Companies/Acme/2024-05-01 Minutes' },
    ]);
  });

  it('forgets an item once it succeeds, so its next failure starts at one minute', () => {
    const { problems } = state.open();
    problems.record(bad, 'first', 0);
    problems.record(bad, 'second', MINUTE);
    expect(problems.clear(bad)).toBe(true);
    expect(problems.clear(bad)).toBe(false);
    expect(problems.get(bad)).toBeNull();
    expect(problems.record(bad, 'again', 0).nextAttemptAt).toBe(MINUTE);
  });

  it('clears every problem of one owner', () => {
    const { problems } = state.open();
    problems.record(bad, 'x', 0);
    problems.record(newFolder, 'y', 0);
    expect(problems.clearOwner(TRUST)).toBe(1);
    expect(problems.list().map((p) => p.owner)).toEqual([COMPANY]);
  });
});
