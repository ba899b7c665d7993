/**
 * The request governor's rules (src/domain/request-governor.ts), one case or more per numbered
 * rule, on virtual time; then the governor against simulated gateways that count in each way
 * (test/helpers/gateway-drive.ts). The queue that keeps its state, with lanes and connections,
 * is test/unit/request-queue-governor.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { BETA, cubicAfterThrottle } from '../../src/domain/cubic-rate.js';
import {
  ARRIVAL_MARGIN_MS,
  currentRate,
  departing,
  departureAt,
  dueAt,
  type GovernorState,
  MIN_RATE,
  newGovernor,
  OUT_SLACK_MS,
  OUT_WAIT_MS,
  SETTLE_MS,
  spacingMs,
  throttled,
  wentOut,
} from '../../src/domain/request-governor.js';
import { RATE_MODES } from '../../src/simulator/rate-limit.js';
import { busiest, driveGateway } from '../helpers/gateway-drive.js';

const T0 = 1_000_000;

/** `n` requests sent as soon as the governor allows, each out the moment it is given its turn. */
function sendBacklog(state: GovernorState, n: number, from = T0) {
  let s = state;
  let now = from;
  const out: number[] = [];
  for (let id = 1; id <= n; id++) {
    now = departureAt(s, now);
    s = wentOut(departing(s, id, now), id, now);
    out.push(now);
  }
  return { state: s, out, now };
}

describe('rule 1: spacing', () => {
  it('sends a backlog evenly spaced at the rate, never two in one instant', () => {
    const { out } = sendBacklog(newGovernor(10), 50);
    const gaps = out.slice(1).map((t, i) => t - out[i]!);
    expect(new Set(gaps)).toEqual(new Set([spacingMs(10)]));
    expect(new Set(out).size).toBe(50);
  });

  it('lets a request go at once after a quiet spell, and the next a spacing after it', () => {
    let state = wentOut(departing(newGovernor(10), 1, T0), 1, T0);
    expect(departureAt(state, T0 + 5_000)).toBe(T0 + 5_000);
    state = wentOut(departing(state, 2, T0 + 5_000), 2, T0 + 5_000);
    expect(departureAt(state, T0 + 5_001)).toBe(T0 + 5_000 + spacingMs(10));
  });
});

describe('rule 2: the margin', () => {
  it.each([
    [10, 105],
    [2.5, 420],
    [0.5, 2100],
    [Number.POSITIVE_INFINITY, 0],
  ])('at %s requests a second, %s ms apart', (rate, ms) => {
    expect(spacingMs(rate)).toBe(ms);
  });

  it('spaces the rate a second and the margin apart, not a second', () => {
    expect(spacingMs(10)).toBe((1000 + ARRIVAL_MARGIN_MS) / 10);
    const { out } = sendBacklog(newGovernor(10), 11);
    expect(out[10]! - out[0]!).toBe(1000 + ARRIVAL_MARGIN_MS);
  });

  it('keeps any one-second window at the rate however the network shifts arrivals within the margin', () => {
    const { out } = sendBacklog(newGovernor(10), 500);
    // The worst the network can do: a request delayed by all of the margin but one millisecond,
    // and the ten after it not at all.
    const late = (i: number) => (i % 20 === 0 ? ARRIVAL_MARGIN_MS - 1 : 0);
    expect(busiest(out.map((t, i) => t + late(i)))).toBe(10);
    // Without the margin (a second per ten), the same delays show eleven in a second.
    const bare = out.map((_, i) => T0 + (i * 1000) / 10 + late(i));
    expect(busiest(bare)).toBe(11);
  });
});

describe('rule 3: counted when it goes out', () => {
  it('holds the next request while one given its turn has not gone out', () => {
    const state = departing(newGovernor(10), 1, T0);
    for (const at of [T0, T0 + 200, T0 + OUT_WAIT_MS - 1]) {
      expect(departureAt(state, at)).toBeGreaterThan(at);
    }
    // Its connection took 300 ms: the next leaves a spacing after it went out, not its turn.
    const out = wentOut(state, 1, T0 + 300);
    expect(departureAt(out, T0 + 300)).toBe(T0 + 300 + spacingMs(10));
  });

  it('takes one slower than OUT_WAIT_MS to have gone out then, and spaces from when it really does', () => {
    let state = departing(newGovernor(10), 1, T0);
    const lapsed = T0 + OUT_WAIT_MS + spacingMs(10);
    expect(departureAt(state, lapsed)).toBe(lapsed);
    state = departing(state, 2, lapsed);
    // The slow one goes out now, after the next was given its turn: the one after both waits
    // a spacing after the later of them.
    state = wentOut(state, 1, lapsed + 10);
    state = wentOut(state, 2, lapsed + 20);
    expect(departureAt(state, lapsed + 20)).toBe(lapsed + 20 + spacingMs(10));
  });

  it('keeps the cadence through a request that goes out a little late, not through one very late', () => {
    const spacing = spacingMs(10);
    let state = departing(newGovernor(10), 1, T0);
    state = wentOut(state, 1, T0 + 3, dueAt(state, 1)!);
    expect(departureAt(state, T0 + 3)).toBe(T0 + spacing);
    // Its timer fired 2 ms late: still due on the cadence.
    state = departing(state, 2, T0 + spacing + 2);
    expect(dueAt(state, 2)).toBe(T0 + spacing);
    state = wentOut(state, 2, T0 + spacing + 300, dueAt(state, 2)!);
    expect(departureAt(state, T0 + spacing + 300)).toBe(T0 + 2 * spacing + 300 - OUT_SLACK_MS);
    // After a quiet spell the cadence starts again from now.
    state = departing(state, 3, T0 + 60_000);
    expect(dueAt(state, 3)).toBe(T0 + 60_000);
  });

  it('never lets the slack add up: any run of requests spans its spacings less one slack', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    let state = newGovernor(10);
    let now = T0;
    const out: number[] = [];
    for (let id = 1; id <= 400; id++) {
      now = departureAt(state, now) + Math.floor(random() * 3); // a timer a little late
      state = departing(state, id, now);
      const late = [0, 2, 5, 9, 40, 300][Math.floor(random() * 6)]!; // then on the wire
      now += late;
      state = wentOut(state, id, now, dueAt(state, id)!);
      out.push(now);
    }
    const spans = out.slice(10).map((t, i) => t - out[i]!);
    expect(Math.min(...spans)).toBeGreaterThanOrEqual(10 * spacingMs(10) - OUT_SLACK_MS);
  });
});

describe('rule 4: a 429 lowers the rate, which climbs back slowly', () => {
  it('lowers it to BETA of the rate the requests went out at', () => {
    const { state, now } = sendBacklog(newGovernor(10), 30);
    const after = throttled(state, now, now + 20);
    expect(currentRate(after, now + 20)).toBeCloseTo(BETA * 10, 5);
    expect(departureAt(after, now + 20)).toBeCloseTo(now + spacingMs(BETA * 10), 5);
  });

  it('with a ceiling far above what was sent, lowers from what went out in the last second', () => {
    // Twelve at once (no limit to speak of), then a 429: the limit is below twelve a second,
    // not below seven hundred.
    const { state, now } = sendBacklog(newGovernor(1000), 12);
    expect(currentRate(throttled(state, now, now + 5), now + 5)).toBeCloseTo(BETA * 12, 5);
  });

  it('climbs back along the cubic curve: steep at first, flat near where the 429 came, then past it', () => {
    const { state, now } = sendBacklog(newGovernor(10), 30);
    const lowered = throttled(state, now, now);
    const { k } = cubicAfterThrottle(10, now);
    const at = (s: number) => currentRate(lowered, now + s * 1000);
    expect(at(0)).toBeCloseTo(7, 5);
    // Slow: ten seconds later it has not made up a fifth of what it lost.
    expect(at(10)).toBeLessThan(7 + 0.2 * 3);
    expect(at(k / 2)).toBeGreaterThan(9.5);
    expect(at(k)).toBeCloseTo(10, 5);
    // Never above the ceiling.
    expect(at(2 * k)).toBe(10);
    const climb = [0, 10, 30, 60, 90, 120, k].map(at);
    expect(climb).toEqual([...climb].sort((a, b) => a - b));
  });

  it('past the rate of the 429, climbs on toward the ceiling', () => {
    const lowered = throttled(sendBacklog(newGovernor(10), 4).state, T0, T0 + 500);
    const wMax = lowered.cubic!.wMax;
    expect(wMax).toBeLessThan(10);
    const k = lowered.cubic!.k;
    expect(currentRate(lowered, T0 + 500 + (k + 60) * 1000)).toBeGreaterThan(wMax);
    expect(currentRate(lowered, T0 + 500 + (k + 600) * 1000)).toBe(10);
  });

  it(`never goes below ${MIN_RATE} a second`, () => {
    let state = newGovernor(10);
    for (let i = 0; i < 20; i++) state = throttled(state, T0 + i * 2000, T0 + i * 2000 + 1);
    expect(currentRate(state, T0 + 40_000)).toBe(MIN_RATE);
  });
});

describe('rule 5: one lowering per window', () => {
  it('a 429 for a request sent before the lowering or within SETTLE_MS after it lowers nothing, but counts', () => {
    const { state, now } = sendBacklog(newGovernor(10), 30);
    const once = throttled(state, now, now + 20);
    const rate = currentRate(once, now + 20);
    const before = throttled(once, now - 100, now + 30);
    const soonAfter = throttled(before, now + 20 + SETTLE_MS - 1, now + SETTLE_MS + 50);
    expect(currentRate(soonAfter, now + 20)).toBe(rate);
    expect(soonAfter.throttles).toBe(3);
    const later = throttled(soonAfter, now + 20 + SETTLE_MS, now + SETTLE_MS + 60);
    expect(currentRate(later, now + SETTLE_MS + 60)).toBeLessThan(rate);
  });
});

describe('rule 7: no ceiling', () => {
  it('spaces nothing, and a 429 only counts', () => {
    const { out, state } = sendBacklog(newGovernor(Number.POSITIVE_INFINITY), 5);
    expect(new Set(out)).toEqual(new Set([T0]));
    const after = throttled(state, T0, T0 + 1);
    expect(departureAt(after, T0 + 1)).toBe(T0 + 1);
    expect(after.throttles).toBe(1);
  });
});

describe('against a gateway counting in each way', () => {
  const MINUTE = 60_000;

  it.each(RATE_MODES)(
    '%s: the limit known, no 429 however the network shifts arrivals within the margin and timers fire late',
    (mode) => {
      const run = driveGateway({
        ceiling: 10,
        limit: 10,
        modes: [mode],
        jitterMs: ARRIVAL_MARGIN_MS - OUT_SLACK_MS - 1,
        lateMs: 5,
        durationMs: 5 * MINUTE,
      });
      expect(run.refused).toBe(0);
      expect(run.passedPerSecond).toBeGreaterThan(0.95 * 10);
    },
  );

  it.each(RATE_MODES)(
    '%s: a limit below the ceiling costs a handful of 429s at first, then one every few minutes',
    (mode) => {
      const run = driveGateway({
        ceiling: 10,
        limit: 6,
        modes: [mode],
        jitterMs: 30,
        durationMs: 36 * MINUTE,
      });
      expect(run.refusedAt.filter((t) => t < MINUTE).length).toBeLessThanOrEqual(5);
      expect(run.refused / run.sent).toBeLessThan(0.002);
      expect(run.passedPerSecond).toBeGreaterThan(0.85 * 6);
    },
  );
});
