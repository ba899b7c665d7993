/**
 * The work pick's rules (src/domain/work-pick.ts), one case or more per numbered rule, each named
 * by what a user would see of it; rule 12 on a virtual clock at firm size in
 * poll-round-pace.test.ts, and the scheduler that asks the pick in work-scheduler.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/domain/lanes.js';
import { HOT_SHARE } from '../../src/domain/poll-policy.js';
import {
  ECHO_MS,
  type PollKind,
  type PollState,
  pickWork,
  type QueuedSync,
  requestLane,
  type WorkPick,
  type WorkView,
} from '../../src/domain/work-pick.js';

const NOW = 1_000_000;

interface Over extends Partial<Omit<WorkView, 'polls'>> {
  readonly polls?: Partial<PollState>;
}

/** Nothing queued, nothing running, every slot free, polls unpaced. */
const view = ({ polls, ...over }: Over = {}): WorkView => ({
  queued: [],
  busy: new Set(),
  urgent: { slots: 8, inUse: { webhook: 0, watcher: 0 } },
  poll: { slots: 4, inUse: 0 },
  ...over,
  polls: {
    now: NOW,
    paced: false,
    nextPollAt: 0,
    round: [],
    hot: [],
    hinted: [],
    hotIntervalMs: 10_000,
    recent: { hot: 0, round: 0 },
    ...polls,
  },
});
const syncs = (lane: Lane, n: number, prefix: string = lane): QueuedSync[] =>
  Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, lane }));
const urgentSlots = (webhook: number, watcher: number, slots = 8) => ({
  slots,
  inUse: { webhook, watcher },
});
const urgent = (key: string, rule: 5 | 6): WorkPick => ({
  kind: 'start-queued',
  key,
  slot: 'urgent-slot',
  rule,
});
const poll = (kind: PollKind, key: string, rule: 9 | 10 | 12 | 13): WorkPick => ({
  kind: 'start-poll',
  poll: kind,
  key,
  rule,
});
const NOTHING: WorkPick = { kind: 'wait', untilMs: null, rule: 14 };

/** [rule, what a user sees, the view, the pick]. */
const cases: [number, string, WorkView, WorkPick][] = [
  [
    2,
    'a sync whose entity is locked (a person deciding) waits in the queue, and the next one starts',
    view({ queued: syncs('webhook', 2), busy: new Set(['webhook0']) }),
    urgent('webhook1', 6),
  ],
  [
    2,
    'an entity in a sync now is not polled, in the round or among the hot',
    view({
      busy: new Set(['a', 'h']),
      polls: { round: ['a', 'b'], hot: [{ key: 'h', listedAt: 0 }] },
    }),
    poll('round', 'b', 13),
  ],
  [
    2,
    'an entity waiting for its sync is not polled beside it',
    view({
      queued: syncs('watcher', 1, 'a'),
      urgent: urgentSlots(2, 6),
      polls: { round: ['a0', 'b'] },
    }),
    poll('round', 'b', 13),
  ],
  [
    3,
    "a poll the scanning mode asked for starts first, in the order asked, whatever the polls' pace",
    view({
      queued: [...syncs('webhook', 1), ...syncs('poll', 2)],
      polls: { paced: true, nextPollAt: NOW + 1_000, round: ['a'] },
    }),
    { kind: 'start-queued', key: 'poll0', slot: 'poll-slot', rule: 3 },
  ],
  [
    3,
    'a poll asked for waits for a poll slot, while a webhook takes an urgent one',
    view({ queued: [...syncs('poll', 1), ...syncs('webhook', 1)], poll: { slots: 4, inUse: 4 } }),
    urgent('webhook0', 6),
  ],
  [
    4,
    'with every urgent slot taken a webhook waits, and the round goes on',
    view({ queued: syncs('webhook', 2), urgent: urgentSlots(5, 3), polls: { round: ['a'] } }),
    poll('round', 'a', 13),
  ],
  [
    4,
    'within a lane, the sync asked for first starts first',
    view({
      queued: [...syncs('watcher', 1), { key: 'first', lane: 'webhook' }, ...syncs('webhook', 1)],
    }),
    urgent('first', 6),
  ],
  [
    5,
    'a webhook finds a slot while the watcher fills the rest',
    view({
      queued: [...syncs('watcher', 10), ...syncs('webhook', 1)],
      urgent: urgentSlots(0, 6),
    }),
    urgent('webhook0', 6),
  ],
  [
    5,
    "the watcher's syncs never take the two slots kept for the webhooks",
    view({ queued: syncs('watcher', 10), urgent: urgentSlots(0, 6) }),
    NOTHING,
  ],
  [
    5,
    'the webhooks never take the two slots kept for the watcher, whose sync then goes first',
    view({
      queued: [...syncs('webhook', 5), ...syncs('watcher', 3)],
      urgent: urgentSlots(6, 1),
    }),
    urgent('watcher0', 5),
  ],
  [
    5,
    'a pool under four slots keeps no shares: the order alone',
    view({
      queued: [...syncs('watcher', 1), ...syncs('webhook', 1)],
      urgent: urgentSlots(1, 0, 2),
    }),
    urgent('webhook0', 6),
  ],
  [
    6,
    'both lanes under what they may hold: the webhook goes before the watcher',
    view({ queued: [...syncs('watcher', 1), ...syncs('webhook', 1)], urgent: urgentSlots(3, 2) }),
    urgent('webhook0', 6),
  ],
  [
    7,
    'polls paced: the next poll waits for its time',
    view({ polls: { paced: true, nextPollAt: NOW + 500, round: ['a'] } }),
    { kind: 'wait', untilMs: NOW + 500, rule: 7 },
  ],
  [
    7,
    'polls not paced: the next poll starts at once',
    view({ polls: { paced: false, nextPollAt: NOW + 500, round: ['a'] } }),
    poll('round', 'a', 13),
  ],
  [
    7,
    'every poll slot in use: no poll until one ends',
    view({ poll: { slots: 4, inUse: 4 }, polls: { round: ['a'] } }),
    { kind: 'wait', untilMs: null, rule: 7 },
  ],
  [
    8,
    'a hot entity listed less than its interval ago is not due',
    view({ polls: { round: ['a'], hot: [{ key: 'h', listedAt: NOW - 9_999 }] } }),
    poll('round', 'a', 13),
  ],
  [
    8,
    'a hot entity is due once its interval has passed',
    view({ polls: { hot: [{ key: 'h', listedAt: NOW - 10_000 }] } }),
    poll('hot', 'h', 13),
  ],
  [
    9,
    'a hinted entity is listed at once, though listed a moment ago and hot',
    view({
      polls: {
        hot: [{ key: 'h', listedAt: NOW - 100 }],
        hinted: [{ key: 'h', hintedAt: NOW - 50 }],
      },
    }),
    poll('hinted', 'h', 9),
  ],
  [
    9,
    'of several hinted entities, the one hinted first; a busy one waits',
    view({
      busy: new Set(['busy']),
      polls: {
        hinted: [
          { key: 'later', hintedAt: NOW - 1_000 },
          { key: 'busy', hintedAt: NOW - 9_000 },
          { key: 'first', hintedAt: NOW - 5_000 },
        ],
      },
    }),
    poll('hinted', 'first', 9),
  ],
  [
    10,
    "a hinted entity goes before a due hot one, on the hot polls' turn",
    view({
      polls: {
        round: ['a'],
        hot: [{ key: 'h', listedAt: 0 }],
        hinted: [{ key: 'x', hintedAt: NOW }],
        recent: { hot: 1, round: 9 },
      },
    }),
    poll('hinted', 'x', 10),
  ],
  [
    10,
    'the round keeps its turn when the hot polls have had their share, hinted or not',
    view({
      polls: { round: ['a'], hinted: [{ key: 'x', hintedAt: NOW }], recent: { hot: 3, round: 9 } },
    }),
    poll('round', 'a', 12),
  ],
  [
    11,
    'of several due hot entities, the one listed longest ago',
    view({
      polls: {
        hot: [
          { key: 'recent', listedAt: NOW - 20_000 },
          { key: 'oldest', listedAt: NOW - 90_000 },
          { key: 'older', listedAt: NOW - 50_000 },
        ],
      },
    }),
    poll('hot', 'oldest', 13),
  ],
  [
    12,
    'hot and round both waiting, hot has had less than its share: hot',
    view({
      polls: { round: ['a'], hot: [{ key: 'h', listedAt: 0 }], recent: { hot: 1, round: 9 } },
    }),
    poll('hot', 'h', 12),
  ],
  [
    12,
    'hot and round both waiting, hot has had its share: the round',
    view({
      polls: { round: ['a'], hot: [{ key: 'h', listedAt: 0 }], recent: { hot: 3, round: 9 } },
    }),
    poll('round', 'a', 12),
  ],
  [
    12,
    'hot has had exactly its share (one poll in six): the round',
    view({
      polls: { round: ['a'], hot: [{ key: 'h', listedAt: 0 }], recent: { hot: 1, round: 4 } },
    }),
    poll('round', 'a', 12),
  ],
  [
    13,
    'only the round waits: it takes the slot, whatever the shares',
    view({ polls: { round: ['a', 'b'], recent: { hot: 0, round: 100 } } }),
    poll('round', 'a', 13),
  ],
  [
    13,
    'only hot entities wait: they take the slot, whatever the shares',
    view({ polls: { hot: [{ key: 'h', listedAt: 0 }], recent: { hot: 100, round: 0 } } }),
    poll('hot', 'h', 13),
  ],
  [
    14,
    'nothing due: wait until the next hot entity is due',
    view({ polls: { hot: [{ key: 'h', listedAt: NOW - 4_000 }] } }),
    { kind: 'wait', untilMs: NOW + 6_000, rule: 14 },
  ],
  [14, 'nothing at all: wait until something changes', view(), NOTHING],
];

describe('pickWork', () => {
  it.each(cases)('%i: %s', (_rule, _name, over, expected) => {
    expect(pickWork(over)).toEqual(expected);
  });

  it('12: over many picks with both waiting, hot polls take HOT_SHARE of them', () => {
    const recent = { hot: 0, round: 0 };
    for (let i = 0; i < 1000; i++) {
      const pick = pickWork(
        view({ polls: { round: ['a'], hot: [{ key: 'h', listedAt: 0 }], recent } }),
      );
      if (pick.kind === 'start-poll' && pick.poll === 'hot') recent.hot++;
      else recent.round++;
    }
    expect(recent.hot / 1000).toBeCloseTo(HOT_SHARE, 2);
  });

  it('10: over many picks, hinted and hot polls together take HOT_SHARE of them', () => {
    const recent = { hot: 0, round: 0 };
    for (let i = 0; i < 1000; i++) {
      const hinted = i % 2 === 0 ? [{ key: `x${i}`, hintedAt: NOW }] : [];
      const pick = pickWork(
        view({ polls: { round: ['a'], hot: [{ key: 'h', listedAt: 0 }], hinted, recent } }),
      );
      if (pick.kind === 'start-poll' && pick.poll === 'round') recent.round++;
      else recent.hot++;
    }
    expect(recent.hot / 1000).toBeCloseTo(HOT_SHARE, 2);
  });
});

describe('requestLane', () => {
  it("1: a webhook about an entity whose watcher sync runs or waits takes the watcher's lane", () => {
    expect(requestLane('webhook', true, { running: 'watcher' })).toBe('watcher');
    expect(requestLane('webhook', true, { waiting: 'watcher' })).toBe('watcher');
  });

  it('1: and one about an entity whose watcher sync ended less than ECHO_MS ago: the echo of its uploads', () => {
    expect(requestLane('webhook', true, { watcherEndedAgoMs: 0 })).toBe('watcher');
    expect(requestLane('webhook', true, { watcherEndedAgoMs: ECHO_MS - 1 })).toBe('watcher');
    expect(requestLane('webhook', true, { watcherEndedAgoMs: ECHO_MS })).toBe('webhook');
  });

  it('1: otherwise, and for what is not a webhook (a person\'s "Sync now"), the lane asked', () => {
    expect(requestLane('webhook', true, {})).toBe('webhook');
    expect(requestLane('webhook', true, { running: 'poll', waiting: 'webhook' })).toBe('webhook');
    expect(requestLane('webhook', false, { running: 'watcher' })).toBe('webhook');
    expect(requestLane('watcher', false, { running: 'webhook' })).toBe('watcher');
  });
});

it("has a case for every rule in work-pick.ts's table, and no other", () => {
  const source = readFileSync(new URL('../../src/domain/work-pick.ts', import.meta.url), 'utf8');
  const header = source.slice(0, source.indexOf('*/'));
  const documented = [...header.matchAll(/^ \* (\d+)\. /gm)].map((m) => Number(m[1]));
  const tested = new Set([1, ...cases.map(([rule]) => rule)]);
  expect([...tested].sort((a, b) => a - b)).toEqual(documented);
});
