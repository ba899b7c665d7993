import { describe, expect, it } from 'vitest';
import { type Sample, SampleRing, sampleOf } from '../../src/web/samples.js';

const at = (n: number): Sample => ({ at: n, requestsPerSecond: n, budget: 10, waiting: null });

describe("the charts' sample ring", () => {
  it('keeps the newest samples, oldest first, once it wraps', () => {
    const ring = new SampleRing(3);
    ring.add(at(1));
    ring.add(at(2));
    expect(ring.list().map((s) => s.at)).toEqual([1, 2]);
    for (const n of [3, 4, 5]) ring.add(at(n));
    expect(ring.list().map((s) => s.at)).toEqual([3, 4, 5]);
    ring.add(at(6));
    expect(ring.list().map((s) => s.at)).toEqual([4, 5, 6]);
  });

  it("samples the rate, the budget and each lane's syncs and requests waiting", () => {
    const lane = (syncs: number, requests: number) => ({
      syncsWaiting: syncs,
      requestsWaiting: requests,
      requestsStarted: 0,
      requestsWaitedMs: 0,
    });
    const sample = sampleOf(
      {
        nextCycleAt: null,
        queueDepth: 0,
        requestsPerSecond: 4.5,
        requestBudgetPerSecond: 10,
        watcherMode: 'events',
        tokenValid: true,
        work: {
          lanes: { push: lane(0, 1), webhook: lane(2, 3), watcher: lane(0, 0), poll: lane(4, 8) },
          syncsRunning: 0,
          round: null,
          hotEntities: 0,
          coveragePeriodMs: 0,
        },
      },
      1000,
    );
    expect(sample).toEqual({
      at: 1000,
      requestsPerSecond: 4.5,
      budget: 10,
      waiting: { push: 1, webhook: 5, watcher: 0, poll: 12 },
    });
  });
});
