/**
 * The poll policy's rules (src/domain/poll-policy.ts), one case or more per numbered rule; rule 9,
 * the round's pace, on a virtual clock in poll-round-pace.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  choosePoll,
  coveragePeriodMs,
  HOT_SHARE,
  hotIntervalMs,
  isHot,
  MIN_HOT_INTERVAL_MS,
  type PollView,
} from '../../src/domain/poll-policy.js';

const NOW = 1_000_000;
const view = (over: Partial<PollView>): PollView => ({
  now: NOW,
  round: [],
  hot: [],
  hinted: [],
  hotIntervalMs: 10_000,
  recent: { hot: 0, round: 0 },
  busy: new Set(),
  ...over,
});

describe('choosePoll', () => {
  const cases: [string, Partial<PollView>, ReturnType<typeof choosePoll>][] = [
    [
      '1: an entity in a sync now is skipped, in the round and among the hot',
      { round: ['a', 'b'], hot: [{ key: 'h', listedAt: 0 }], busy: new Set(['a', 'h']) },
      { kind: 'round', key: 'b', rule: 4 },
    ],
    [
      '2: a hot entity listed less than its interval ago is not due',
      { round: ['a'], hot: [{ key: 'h', listedAt: NOW - 9_999 }] },
      { kind: 'round', key: 'a', rule: 4 },
    ],
    [
      '2: a hot entity is due once its interval has passed',
      { hot: [{ key: 'h', listedAt: NOW - 10_000 }] },
      { kind: 'hot', key: 'h', rule: 4 },
    ],
    [
      '3: hot and round both waiting, hot has had less than its share: hot',
      { round: ['a'], hot: [{ key: 'h', listedAt: 0 }], recent: { hot: 1, round: 9 } },
      { kind: 'hot', key: 'h', rule: 3 },
    ],
    [
      '3: hot and round both waiting, hot has had its share: the round',
      { round: ['a'], hot: [{ key: 'h', listedAt: 0 }], recent: { hot: 3, round: 9 } },
      { kind: 'round', key: 'a', rule: 3 },
    ],
    [
      '4: only the round waits: it takes the slot, whatever the shares',
      { round: ['a', 'b'], recent: { hot: 0, round: 100 } },
      { kind: 'round', key: 'a', rule: 4 },
    ],
    [
      '4: only hot entities wait: they take the slot, whatever the shares',
      { hot: [{ key: 'h', listedAt: 0 }], recent: { hot: 100, round: 0 } },
      { kind: 'hot', key: 'h', rule: 4 },
    ],
    [
      '5: of several due hot entities, the one listed longest ago',
      {
        hot: [
          { key: 'recent', listedAt: NOW - 20_000 },
          { key: 'oldest', listedAt: NOW - 90_000 },
          { key: 'older', listedAt: NOW - 50_000 },
        ],
      },
      { kind: 'hot', key: 'oldest', rule: 4 },
    ],
    [
      '6: nothing due: wait until the next hot entity is due',
      { hot: [{ key: 'h', listedAt: NOW - 4_000 }] },
      { kind: 'wait', untilMs: NOW + 6_000, rule: 6 },
    ],
    ['6: nothing at all: wait for a round', {}, { kind: 'wait', untilMs: null, rule: 6 }],
    [
      '7: a hinted entity is due at once, though listed a moment ago and hot',
      {
        hot: [{ key: 'h', listedAt: NOW - 100 }],
        hinted: [{ key: 'h', hintedAt: NOW - 50 }],
      },
      { kind: 'hinted', key: 'h', rule: 7 },
    ],
    [
      '7: of several hinted entities, the one hinted first; a busy one waits',
      {
        hinted: [
          { key: 'later', hintedAt: NOW - 1_000 },
          { key: 'busy', hintedAt: NOW - 9_000 },
          { key: 'first', hintedAt: NOW - 5_000 },
        ],
        busy: new Set(['busy']),
      },
      { kind: 'hinted', key: 'first', rule: 7 },
    ],
    [
      "8: a hinted entity goes before a due hot one, on the hot polls' turn",
      {
        round: ['a'],
        hot: [{ key: 'h', listedAt: 0 }],
        hinted: [{ key: 'x', hintedAt: NOW }],
        recent: { hot: 1, round: 9 },
      },
      { kind: 'hinted', key: 'x', rule: 8 },
    ],
    [
      '8: the round keeps its turn when the hot polls have had their share',
      {
        round: ['a'],
        hinted: [{ key: 'x', hintedAt: NOW }],
        recent: { hot: 3, round: 9 },
      },
      { kind: 'round', key: 'a', rule: 3 },
    ],
  ];
  it.each(cases)('%s', (_name, over, expected) => {
    expect(choosePoll(view(over))).toEqual(expected);
  });

  it('3: over many picks with both waiting, hot polls take HOT_SHARE of them', () => {
    const recent = { hot: 0, round: 0 };
    for (let i = 0; i < 1000; i++) {
      const pick = choosePoll(view({ round: ['a'], hot: [{ key: 'h', listedAt: 0 }], recent }));
      if (pick.kind === 'hot') recent.hot++;
      else recent.round++;
    }
    expect(recent.hot / 1000).toBeCloseTo(HOT_SHARE, 2);
  });

  it('8: over many picks, hinted and hot polls together take HOT_SHARE of them', () => {
    const recent = { hot: 0, round: 0 };
    for (let i = 0; i < 1000; i++) {
      const pick = choosePoll(
        view({
          round: ['a'],
          hot: [{ key: 'h', listedAt: 0 }],
          hinted: i % 2 === 0 ? [{ key: `x${i}`, hintedAt: NOW }] : [],
          recent,
        }),
      );
      if (pick.kind === 'round') recent.round++;
      else recent.hot++;
    }
    expect(recent.hot / 1000).toBeCloseTo(HOT_SHARE, 2);
  });
});

describe('the budget', () => {
  it('gives all hot entities at most their share of the polling rate, never faster than the floor', () => {
    expect(hotIntervalMs(0, 10)).toBe(MIN_HOT_INTERVAL_MS);
    expect(hotIntervalMs(10, 10)).toBe(MIN_HOT_INTERVAL_MS); // 10 lists in 10 s ≤ 10/6 a second
    expect(hotIntervalMs(250, 10)).toBe(150_000); // 250 hot at a sixth of 10/s
  });

  it('covers every entity within a round at the rate the hot polls leave, or the cron interval', () => {
    expect(coveragePeriodMs(100, 10, 300_000)).toBe(300_000); // a small firm: the schedule
    expect(coveragePeriodMs(5000, 10, 300_000)).toBe(600_000); // 5,000 at five sixths of 10/s
    expect(coveragePeriodMs(5000, Number.POSITIVE_INFINITY, 300_000)).toBe(300_000);
  });

  it('counts an entity as hot for half an hour after a change', () => {
    expect(isHot(undefined, NOW)).toBe(false);
    expect(isHot(NOW - 60_000, NOW)).toBe(true);
    expect(isHot(NOW - 31 * 60_000, NOW)).toBe(false);
  });
});
