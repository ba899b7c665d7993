import { describe, expect, it } from 'vitest';
import { RAILS_JUDGE_WHOLE, railFindings, type SentDelete } from './rail-watch.js';

const MIN = 60_000;
const limits = { maxDeletePercent: 50, maxDeleteCount: 100, windowMs: 5 * MIN };

function sent(documentId: string, over: Partial<SentDelete> = {}): SentDelete {
  return {
    documentId,
    life: 1,
    sentAt: 10 * MIN,
    sentSeq: 100,
    plannedAt: 10 * MIN,
    plannedSeq: 99,
    inHoldAtPlan: new Set(),
    agreedAtPlan: 6,
    agreedAtSend: 6,
    approved: false,
    ...over,
  };
}

/** Four removed folders' deletes: d1's entity planned with d2..d4 in their hold, sent after. */
function burst(over: Partial<SentDelete> = {}): SentDelete[] {
  return [
    sent('d1', { inHoldAtPlan: new Set(['d2', 'd3', 'd4']) }),
    ...['d2', 'd3', 'd4'].map((id) =>
      sent(id, {
        sentAt: 6 * 60 * MIN,
        sentSeq: 300,
        plannedAt: 6 * 60 * MIN,
        plannedSeq: 299,
        ...over,
      }),
    ),
  ];
}

describe('the delete rails judge a burst whole (invariant 15)', () => {
  it('finds deletes in their hold at the judgement that went later without a person, over the percentage', () => {
    const findings = railFindings(burst(), limits, new Map());
    expect(findings).toHaveLength(1);
    expect(findings[0]?.invariant).toBe(RAILS_JUDGE_WHOLE);
    expect(findings[0]?.detail).toContain('4 deletes');
    expect(findings[0]?.detail).toContain('safety.maxDeletePercent 50 of 6 documents');
  });

  it('leaves out the deletes a person approved', () => {
    expect(railFindings(burst({ approved: true }), limits, new Map())).toEqual([]);
  });

  it('leaves out a delete whose folder was removed again after the planning (its hold began anew)', () => {
    const removedAgain = new Map([
      ['d3', 150],
      ['d4', 150],
    ]);
    expect(railFindings(burst(), limits, removedAgain)).toEqual([]);
  });

  it('counts the store as it was largest, at the planning or at the send', () => {
    const larger = burst().map((d) => ({ ...d, agreedAtSend: 9 }));
    expect(railFindings(larger, limits, new Map())).toEqual([]);
  });

  it('counts the deletes sent before within the shortest window, in the same life only', () => {
    const earlier = [1, 2, 3].map((n) =>
      sent(`e${n}`, { sentAt: 8 * MIN, sentSeq: 50, plannedAt: 8 * MIN, plannedSeq: 49 }),
    );
    const last = sent('d1');
    expect(railFindings([...earlier, last], limits, new Map())).toHaveLength(1);
    const otherLife = earlier.map((d) => ({ ...d, life: 2 }));
    expect(railFindings([...otherLife, last], limits, new Map())).toEqual([]);
    const beforeTheWindow = earlier.map((d) => ({ ...d, sentAt: 4 * MIN, plannedAt: 4 * MIN }));
    expect(railFindings([...beforeTheWindow, last], limits, new Map())).toEqual([]);
  });

  it('counts a delete sent twice (its answer lost) once, and holds a count under the rails clean', () => {
    const twice = [
      sent('d1', { inHoldAtPlan: new Set(['d2']) }),
      sent('d2', { sentAt: 11 * MIN, sentSeq: 110 }),
      sent('d2', { sentAt: 12 * MIN, sentSeq: 120 }),
    ];
    expect(railFindings(twice, limits, new Map())).toEqual([]);
  });

  it('finds a count over safety.maxDeleteCount whatever the store', () => {
    const few = { ...limits, maxDeleteCount: 2, maxDeletePercent: 100 };
    const three = burst()
      .slice(0, 3)
      .map((d) => ({ ...d, agreedAtPlan: 1000, agreedAtSend: 1000 }));
    expect(railFindings(three, few, new Map())[0]?.detail).toContain('safety.maxDeleteCount 2');
  });
});
