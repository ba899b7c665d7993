/**
 * The request queue's turns (src/domain/fair-lanes.ts), one case or more per numbered rule; the
 * work scheduler's slots and a request's lane are in work-pick.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  afterTurn,
  type LaneCounts,
  nextTurn,
  PATIENCE,
  type TurnView,
} from '../../src/domain/fair-lanes.js';
import { LANES, type Lane } from '../../src/domain/lanes.js';

const none: LaneCounts = { push: 0, webhook: 0, watcher: 0, poll: 0 };
const counts = (over: Partial<LaneCounts>): LaneCounts => ({ ...none, ...over });
const view = (over: Partial<TurnView>): TurnView => ({
  waiting: none,
  passed: none,
  ...over,
});

describe('nextTurn', () => {
  const cases: [string, Partial<TurnView>, ReturnType<typeof nextTurn>][] = [
    [
      '1: a lane with nothing waiting takes no turn, however long it was passed over',
      { waiting: counts({ poll: 3 }), passed: counts({ webhook: PATIENCE }) },
      { kind: 'start', lane: 'poll', rule: 3 },
    ],
    [
      '2: a lane passed over PATIENCE times takes the turn from the lanes ahead of it',
      { waiting: counts({ push: 40, webhook: 1 }), passed: counts({ webhook: PATIENCE }) },
      { kind: 'start', lane: 'webhook', rule: 2 },
    ],
    [
      '2: of two lanes owed a turn, the higher takes it',
      {
        waiting: counts({ push: 40, watcher: 1, poll: 5 }),
        passed: counts({ watcher: PATIENCE, poll: PATIENCE + 1 }),
      },
      { kind: 'start', lane: 'watcher', rule: 2 },
    ],
    [
      '2: polling owed a turn takes it like any lane (a round goes on beside a burst)',
      { waiting: counts({ push: 40, poll: 5 }), passed: counts({ poll: PATIENCE }) },
      { kind: 'start', lane: 'poll', rule: 2 },
    ],
    [
      '3: passed over fewer than PATIENCE times, a lane waits behind the lanes ahead',
      { waiting: counts({ push: 40, webhook: 1 }), passed: counts({ webhook: PATIENCE - 1 }) },
      { kind: 'start', lane: 'push', rule: 3 },
    ],
    [
      '3: the highest lane waiting takes the turn',
      { waiting: counts({ webhook: 1, watcher: 1, poll: 1 }) },
      { kind: 'start', lane: 'webhook', rule: 3 },
    ],
    [
      '4: polling, alone, takes every turn the governor gives: no pace of its own',
      { waiting: counts({ poll: 2 }) },
      { kind: 'start', lane: 'poll', rule: 3 },
    ],
    ['5: nothing waits: no turn', {}, { kind: 'wait', rule: 5 }],
  ];
  it.each(cases)('%s', (_, over, expected) => {
    expect(nextTurn(view(over))).toEqual(expected);
  });

  it('4: a lane ahead that comes while polls wait takes the next turn', () => {
    const turn = nextTurn(view({ waiting: counts({ watcher: 1, poll: 9 }) }));
    expect(turn).toEqual({ kind: 'start', lane: 'watcher', rule: 3 });
  });
});

describe('afterTurn', () => {
  it('counts a turn against each waiting lane behind the one that took it, and clears its own', () => {
    const passed = afterTurn(
      counts({ push: 2, webhook: 1, poll: 2 }),
      counts({ push: 5, webhook: 1, poll: 3 }),
      'push',
    );
    expect(passed).toEqual(counts({ webhook: 2, poll: 3 }));
    expect(afterTurn(passed, counts({ push: 5, webhook: 1, poll: 3 }), 'webhook')).toEqual(
      counts({ poll: 4 }),
    );
  });

  it('forgets the count of a lane that no longer waits', () => {
    expect(afterTurn(counts({ watcher: 2 }), counts({ push: 1 }), 'push')).toEqual(none);
  });
});

/** Gives `turns` turns with every lane in `busy` always waiting; returns who took each. */
function simulate(busy: readonly Lane[], turns: number): Lane[] {
  const waiting = counts(Object.fromEntries(busy.map((lane) => [lane, 100])));
  let passed = none;
  const taken: Lane[] = [];
  for (let i = 0; i < turns; i++) {
    const turn = nextTurn(view({ waiting, passed }));
    if (turn.kind !== 'start') throw new Error('no turn');
    passed = afterTurn(passed, waiting, turn.lane);
    taken.push(turn.lane);
  }
  return taken;
}

describe('the shares that follow from the rules', () => {
  it('2, 3: a burst of pushes leaves a waiting webhook one turn in four, and takes the rest', () => {
    const taken = simulate(['push', 'webhook'], 400);
    expect(taken.filter((l) => l === 'webhook')).toHaveLength(100);
    expect(taken.slice(0, 8)).toEqual([
      'push',
      'push',
      'push',
      'webhook',
      'push',
      'push',
      'push',
      'webhook',
    ]);
  });

  it('2: with every lane busy, none waits more than PATIENCE turns plus one per other lane', () => {
    const taken = simulate(LANES, 600);
    for (const lane of LANES) {
      const at = taken.flatMap((l, i) => (l === lane ? [i] : []));
      const gaps = at.slice(1).map((i, k) => i - at[k]! - 1);
      expect(Math.max(...gaps, at[0]!)).toBeLessThanOrEqual(PATIENCE + LANES.length - 1);
    }
    // The order still shows: pushes take the most turns, polling the fewest.
    const share = (lane: Lane) => taken.filter((l) => l === lane).length;
    expect(share('push')).toBeGreaterThan(share('webhook'));
    expect(share('webhook')).toBeGreaterThanOrEqual(share('poll'));
  });
});
