/** The one request queue orders by lane: a push or a webhook overtakes every waiting poll. */
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/domain/lanes.js';
import { inLane } from '../../src/remote/request-lane.js';
import { RequestQueue } from '../../src/remote/request-queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RequestQueue lanes', () => {
  it('starts a push, a webhook and a watcher request before the polls that were waiting', async () => {
    const queue = new RequestQueue({ requestsPerSecond: Number.POSITIVE_INFINITY, concurrency: 1 });
    const order: string[] = [];
    const request = (lane: Lane, name: string) =>
      inLane(lane, () =>
        queue.run(async () => {
          order.push(name);
          await sleep(15); // a request in flight
        }),
      );
    const polls = Array.from({ length: 8 }, (_, i) => request('poll', `poll ${i}`));
    await sleep(5); // the first poll is in flight
    const urgent = [
      request('watcher', 'watcher'),
      request('webhook', 'webhook'),
      request('push', 'push'),
    ];
    expect(queue.laneStats().poll.waiting).toBeGreaterThan(0);
    await Promise.all([...polls, ...urgent]);
    const firstPolls = order.slice(0, order.indexOf('push'));
    expect(firstPolls.every((name) => name.startsWith('poll'))).toBe(true);
    expect(firstPolls.length).toBeLessThanOrEqual(2); // what was in flight, or started with it
    expect(order.slice(firstPolls.length, firstPolls.length + 3)).toEqual([
      'push',
      'webhook',
      'watcher',
    ]);
    const stats = queue.laneStats();
    expect(stats.poll.started).toBe(8);
    expect(stats.push.started).toBe(1);
    expect(stats.poll.waiting).toBe(0);
    expect(stats.poll.waitedMs).toBeGreaterThan(stats.push.waitedMs);
  });

  it('puts a request made outside any lane between the webhooks and the polls', async () => {
    const queue = new RequestQueue({ requestsPerSecond: Number.POSITIVE_INFINITY, concurrency: 1 });
    const order: string[] = [];
    const polls = Array.from({ length: 4 }, (_, i) =>
      inLane('poll', () =>
        queue.run(async () => {
          order.push(`poll ${i}`);
          await sleep(15);
        }),
      ),
    );
    await sleep(5);
    const plain = queue.run(async () => void order.push('plain'));
    await Promise.all([...polls, plain]);
    expect(order.indexOf('plain')).toBeLessThanOrEqual(2);
    expect(queue.laneStats().watcher.started).toBe(1);
  });

  /** A webhook's request, timed from asking to starting. */
  const urgentWait = async (queue: RequestQueue) => {
    const asked = Date.now();
    let startedAt = 0;
    await inLane('webhook', () =>
      queue.run(async () => {
        startedAt = Date.now();
      }),
    );
    return startedAt - asked;
  };

  it('spaces polls over the window, so a webhook after a quiet spell waits for one slot, not the window', async () => {
    // 8/s: 8 starts per 1,040 ms window, one every 130 ms.
    const queue = new RequestQueue({ requestsPerSecond: 8, concurrency: 4 });
    const pollStarts: number[] = [];
    const polls = Array.from({ length: 30 }, () =>
      inLane('poll', () =>
        queue.run(async () => {
          pollStarts.push(Date.now());
          await sleep(5);
        }),
      ),
    );
    await sleep(300);
    // A burst would have started the whole window's 8 by now.
    expect(pollStarts.length).toBeLessThanOrEqual(4);
    await sleep(900); // polling alone, at the full rate: the window full
    // Bursting, the window would hold the webhook until its oldest start left: up to 0.9 s.
    expect(await urgentWait(queue)).toBeLessThan(300);
    await Promise.all(polls);
    // Alone (before the webhook), polling still had the whole rate: the window's 8 starts.
    const first = pollStarts[0]!;
    expect(pollStarts.filter((t) => t - first < 1040).length).toBeGreaterThanOrEqual(7);
  }, 15_000);

  it('keeps window slots free for other lanes while they are active, so they need not wait for one', async () => {
    const queue = new RequestQueue({ requestsPerSecond: 8, concurrency: 4 });
    const pollStarts: number[] = [];
    const polls = Array.from({ length: 40 }, () =>
      inLane('poll', () =>
        queue.run(async () => {
          pollStarts.push(Date.now());
          await sleep(5);
        }),
      ),
    );
    await sleep(1200); // polling alone fills the window
    await urgentWait(queue); // may wait for a slot this once: polling had filled the window
    await sleep(1200); // a new window, with headroom kept since the webhook
    const windowStart = Date.now() - 1040;
    expect(pollStarts.filter((t) => t > windowStart).length).toBeLessThanOrEqual(6);
    expect(await urgentWait(queue)).toBeLessThan(50);
    await Promise.all(polls);
    expect(pollStarts.length).toBe(40);
  }, 15_000);
});
