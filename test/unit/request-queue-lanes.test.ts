/**
 * The one request queue orders by lane: a push or a webhook overtakes every waiting poll, and
 * polling keeps its pace (spaced over the window, headroom for the others while they are active).
 * On a virtual clock (test/helpers/virtual-queue-clock.ts): requests in flight take the time the
 * test says, and every wait is measured to the millisecond.
 */
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/domain/lanes.js';
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

  // 8/s: 8 starts per 1,040 ms window, a slot of it every 130 ms.
  const RATE = { requestsPerSecond: 8, concurrency: 4 };
  const WINDOW = 1040;
  const SLOT = WINDOW / 8;

  it('spaces polls over the window, so a webhook after a quiet spell waits for one slot, not the window', async () => {
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
    // A burst would have started the whole window's 8 by now: two (one slot in hand), then one
    // a slot apart.
    expect(pollStarts.map((t) => t - first)).toEqual([0, 0, SLOT, 2 * SLOT]);
    await clock.advance(900); // polling alone, at the full rate: the window full
    // Bursting, the window would hold the webhook until its oldest start left: up to 0.9 s.
    expect(await urgentWait(queue, clock)).toBeLessThanOrEqual(SLOT);
    await clock.run(Promise.all(polls));
    // Alone (before the webhook), polling still had the whole rate: the window's 8 starts.
    expect(pollStarts.filter((t) => t - first < WINDOW)).toHaveLength(8);
  });

  it('keeps window slots free for other lanes while they are active, so they need not wait for one', async () => {
    const clock = new VirtualQueueClock();
    const queue = new RequestQueue({ ...RATE, clock });
    const pollStarts: number[] = [];
    const polls = Array.from({ length: 40 }, () =>
      inLane('poll', () =>
        queue.run(async () => {
          pollStarts.push(clock.now());
          await clock.sleep(5);
        }),
      ),
    );
    await clock.advance(1200); // polling alone fills the window
    expect(pollStarts.filter((t) => t > clock.now() - WINDOW)).toHaveLength(8);
    await urgentWait(queue, clock); // may wait for a slot this once: polling had filled the window
    await clock.advance(1200); // a new window, with headroom kept since the webhook
    // Two slots of the eight left free.
    expect(pollStarts.filter((t) => t > clock.now() - WINDOW)).toHaveLength(6);
    expect(await urgentWait(queue, clock)).toBe(0);
    await clock.run(Promise.all(polls));
    expect(pollStarts.length).toBe(40);
  });
});
