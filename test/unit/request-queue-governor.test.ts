/**
 * The request governor through the queue that keeps it (src/remote/request-queue.ts), on a
 * virtual clock: requests in lanes and on connections, a 429 told through `throttled`, and the
 * simulator's own rate limit (src/simulator/rate-limit.ts) counting arrivals in each of its
 * modes, after a random delay on the way. The governor's rules alone are
 * test/unit/request-governor.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { BETA, cubicAfterThrottle } from '../../src/domain/cubic-rate.js';
import type { Lane } from '../../src/domain/lanes.js';
import { ARRIVAL_MARGIN_MS, OUT_SLACK_MS, spacingMs } from '../../src/domain/request-governor.js';
import { inLane } from '../../src/remote/request-lane.js';
import { RequestQueue } from '../../src/remote/request-queue.js';
import { seededRandom } from '../../src/simulator/random.js';
import { RATE_MODES, RateLimiter, type RateMode } from '../../src/simulator/rate-limit.js';
import { VirtualQueueClock } from '../helpers/virtual-queue-clock.js';

/** A queue at `rate`, whose requests are answered 429 when `refuse` says so. */
function queueAt(rate: number) {
  const clock = new VirtualQueueClock();
  const queue = new RequestQueue({ requestsPerSecond: rate, concurrency: 4, clock });
  const started: { lane: Lane; at: number }[] = [];
  const request = (lane: Lane, refuse = false) =>
    inLane(lane, () =>
      queue.run(async (_cut, sending) => {
        const departure = await sending();
        departure.wentOut();
        started.push({ lane, at: clock.now() });
        await clock.sleep(20);
        if (refuse) departure.throttled();
      }),
    );
  return { clock, queue, started, request };
}

const gapsOf = (times: readonly number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('RequestQueue: the governor', () => {
  it('on a 429, sends every lane at the lowered rate at once, pausing none of them', async () => {
    const { clock, queue, started, request } = queueAt(10);
    const pushes = Array.from({ length: 30 }, () => request('push'));
    const polls = Array.from({ length: 30 }, () => request('poll'));
    await clock.advance(2_000);
    const refused = request('webhook', true);
    await clock.run(refused);
    const at = clock.now();
    await clock.advance(3_000);
    const after = started.filter((s) => s.at > at);
    expect(new Set(after.map((s) => s.lane))).toEqual(new Set(['push', 'poll']));
    // The next goes a spacing of the lowered rate after the last, not the Retry-After's second.
    expect(after[0]!.at - at).toBeLessThan(spacingMs(BETA * 10));
    const gaps = gapsOf(after.map((s) => s.at));
    for (const gap of gaps) expect(gap).toBeCloseTo(spacingMs(BETA * 10), -1);
    expect(queue.governor()).toMatchObject({ ceiling: 10, throttles: 1 });
    expect(queue.governor().rate).toBeLessThan(BETA * 10 + 0.2);
    await clock.run(Promise.all([...pushes, ...polls]));
  });

  it('climbs back to the ceiling slowly: still lower a minute on, back after CUBIC’s K', async () => {
    const { clock, queue, started, request } = queueAt(10);
    await clock.run(Promise.all(Array.from({ length: 20 }, () => request('push'))));
    await clock.run(request('push', true));
    const lowered = queue.governor().rate;
    expect(lowered).toBeCloseTo(BETA * 10, 1);
    await clock.advance(60_000);
    const minuteOn = queue.governor().rate;
    expect(minuteOn).toBeGreaterThan(lowered);
    expect(minuteOn).toBeLessThan(10);
    const { k } = cubicAfterThrottle(10, 0);
    await clock.advance(k * 1000);
    expect(queue.governor().rate).toBe(10);
    const from = started.length;
    await clock.run(Promise.all(Array.from({ length: 20 }, () => request('poll'))));
    const gaps = gapsOf(started.slice(from).map((s) => s.at));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(Math.ceil(spacingMs(10)));
  });
});

interface GatewayRun {
  readonly refused: number;
  readonly answered: number;
  readonly rate: number;
}

/**
 * `requests` requests in changing lanes, four at a time, each reaching a gateway that counts by
 * `mode` after a random delay up to `jitterMs`; a 429 is told to the governor and its request
 * waits its Retry-After alone, then tries again, until every one is answered.
 */
async function throughGateway(
  mode: RateMode,
  limit: number,
  requests: number,
  jitterMs: number,
): Promise<GatewayRun> {
  const clock = new VirtualQueueClock();
  const queue = new RequestQueue({ requestsPerSecond: 10, concurrency: 4, clock });
  const gateway = new RateLimiter(limit, [mode]);
  const random = seededRandom(7);
  const lanes: Lane[] = ['push', 'webhook', 'watcher', 'poll'];
  let refused = 0;
  const one = async (i: number) => {
    for (;;) {
      const retryAfter = await inLane(lanes[i % 4]!, () =>
        queue.run(async (_cut, sending) => {
          const departure = await sending();
          departure.wentOut();
          await clock.sleep(random() * jitterMs);
          const wait = gateway.check('token', clock.now());
          await clock.sleep(15);
          if (wait > 0) departure.throttled();
          return wait;
        }),
      );
      if (retryAfter === 0) return;
      refused++;
      await clock.sleep(retryAfter * 1000);
    }
  };
  const start = clock.now();
  await clock.run(Promise.all(Array.from({ length: requests }, (_, i) => one(i))));
  return { refused, answered: requests, rate: requests / ((clock.now() - start) / 1000) };
}

describe('RequestQueue against the simulator’s rate limit, in each mode', () => {
  it.each(RATE_MODES)('%s: the limit known, not one 429, at 95 % of the rate', async (mode) => {
    const run = await throughGateway(mode, 10, 300, ARRIVAL_MARGIN_MS - OUT_SLACK_MS);
    expect(run.refused).toBe(0);
    expect(run.rate).toBeGreaterThan(0.95 * 10);
  });

  it.each(RATE_MODES)(
    '%s: a limit below the configured rate, a handful of 429s, and every request answered',
    async (mode) => {
      const run = await throughGateway(mode, 6, 300, ARRIVAL_MARGIN_MS - OUT_SLACK_MS);
      expect(run.refused).toBeGreaterThan(0);
      expect(run.refused).toBeLessThanOrEqual(5);
      expect(run.answered).toBe(300);
    },
  );
});
