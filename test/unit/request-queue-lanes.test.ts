/**
 * The one request queue orders by lane: a push or a webhook overtakes every waiting poll, and
 * polls, like every request, leave a spacing apart.
 * On a virtual clock (test/helpers/virtual-queue-clock.ts): requests in flight take the time the
 * test says, and every wait is measured to the millisecond.
 */
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/domain/lanes.js';
import { spacingMs } from '../../src/domain/request-governor.js';
import { inLane } from '../../src/remote/request-lane.js';
import { RequestQueue } from '../../src/remote/request-queue.js';
import { VirtualQueueClock } from '../helpers/virtual-queue-clock.js';

describe('RequestQueue lanes', () => {
  it('starts a push, a webhook and a watcher request before the polls that were waiting', async () => {
    const clock = new VirtualQueueClock();
    const queue = new RequestQueue({
      requestsPerSecond: Number.POSITIVE_INFINITY,
      concurrency: 1,
      clock,
    });
    const order: string[] = [];
    const request = (lane: Lane, name: string) =>
      inLane(lane, () =>
        queue.run(async () => {
          order.push(name);
          await clock.sleep(15); // a request in flight
        }),
      );
    const polls = Array.from({ length: 8 }, (_, i) => request('poll', `poll ${i}`));
    await clock.advance(5); // the first poll is in flight
    const urgent = [
      request('watcher', 'watcher'),
      request('webhook', 'webhook'),
      request('push', 'push'),
    ];
    expect(queue.laneStats().poll.waiting).toBe(7);
    await clock.run(Promise.all([...polls, ...urgent]));
    expect(order).toEqual([
      'poll 0', // in flight when they came
      'push',
      'webhook',
      'watcher',
      ...Array.from({ length: 7 }, (_, i) => `poll ${i + 1}`),
    ]);
    const stats = queue.laneStats();
    expect(stats.poll.started).toBe(8);
    expect(stats.push.started).toBe(1);
    expect(stats.poll.waiting).toBe(0);
    expect(stats.push.waitedMs).toBe(10); // the rest of poll 0's 15 ms
    expect(stats.poll.waitedMs).toBeGreaterThan(stats.push.waitedMs);
  });

  it('puts a request made outside any lane between the webhooks and the polls', async () => {
    const clock = new VirtualQueueClock();
    const queue = new RequestQueue({
      requestsPerSecond: Number.POSITIVE_INFINITY,
      concurrency: 1,
      clock,
    });
    const order: string[] = [];
    const polls = Array.from({ length: 4 }, (_, i) =>
      inLane('poll', () =>
        queue.run(async () => {
          order.push(`poll ${i}`);
          await clock.sleep(15);
        }),
      ),
    );
    await clock.advance(5);
    const plain = queue.run(async () => void order.push('plain'));
    await clock.run(Promise.all([...polls, plain]));
    expect(order.indexOf('plain')).toBe(1);
    expect(queue.laneStats().watcher.started).toBe(1);
  });

  /** A webhook's request, timed from asking to starting. */
  const urgentWait = async (queue: RequestQueue, clock: VirtualQueueClock) => {
    const asked = clock.now();
    let startedAt = 0;
    await clock.run(
      inLane('webhook', () =>
        queue.run(async () => {
          startedAt = clock.now();
        }),
      ),
    );
    return startedAt - asked;
  };

  const RATE = { requestsPerSecond: 8, concurrency: 4 };
  const SPACING = spacingMs(8);

  it('spaces polls evenly, so a webhook that comes while they take every turn waits one spacing at most', async () => {
    const clock = new VirtualQueueClock();
    const queue = new RequestQueue({ ...RATE, clock });
    const pollStarts: number[] = [];
    const polls = Array.from({ length: 30 }, () =>
      inLane('poll', () =>
        queue.run(async () => {
          pollStarts.push(clock.now());
          await clock.sleep(5);
        }),
      ),
    );
    const first = clock.now();
    await clock.advance(300);
    // A burst would have started as many as the connections allow by now; each a spacing
    // after the last (timers fire on the whole millisecond).
    expect(pollStarts.map((t) => t - first)).toEqual([0, SPACING, 2 * SPACING].map(Math.ceil));
    await clock.advance(900); // polling alone, at the full rate
    expect(await urgentWait(queue, clock)).toBeLessThanOrEqual(SPACING);
    await clock.run(Promise.all(polls));
    // Alone (before the webhook), polling had the whole rate: a request a spacing.
    expect(pollStarts.filter((t) => t - first < 1_000)).toHaveLength(Math.ceil(1_000 / SPACING));
  });

  it('gives a webhook the next turn ahead of every waiting poll, and the polls the rest', async () => {
    const clock = new VirtualQueueClock();
    const queue = new RequestQueue({ ...RATE, clock });
    const starts: { lane: Lane; at: number }[] = [];
    const request = (lane: Lane) =>
      inLane(lane, () =>
        queue.run(async () => {
          starts.push({ lane, at: clock.now() });
          await clock.sleep(5);
        }),
      );
    const polls = Array.from({ length: 20 }, () => request('poll'));
    await clock.advance(1_000);
    const hooks = [request('webhook'), request('webhook')];
    await clock.run(Promise.all([...polls, ...hooks]));
    const lanes = starts.map((s) => s.lane);
    const firstHook = lanes.indexOf('webhook');
    expect(lanes.slice(firstHook, firstHook + 2)).toEqual(['webhook', 'webhook']);
    const gaps = starts.slice(1).map((s, i) => s.at - starts[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(Math.floor(SPACING));
  });
});
