/**
 * The request queue's fair turns and its pacing by when requests go out (issue 28), with tasks
 * that take as long as the test says. The policy itself is test/unit/fair-lanes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/domain/lanes.js';
import { inLane } from '../../src/remote/request-lane.js';
import { RequestQueue } from '../../src/remote/request-queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The most requests any one-second span holds, of requests sent at `times`. */
function busiestSecond(times: readonly number[]): number {
  return Math.max(0, ...times.map((t) => times.filter((s) => s > t - 1000 && s <= t).length));
}

describe('RequestQueue: fair turns', () => {
  it('gives a webhook a turn in four during a burst of pushes, and the burst the rest', async () => {
    const queue = new RequestQueue({ requestsPerSecond: 50, concurrency: 4 });
    const order: Lane[] = [];
    const request = (lane: Lane) =>
      inLane(lane, () =>
        queue.run(async () => {
          order.push(lane);
          await sleep(5);
        }),
      );
    const burst = Array.from({ length: 120 }, () => request('push'));
    await sleep(200);
    const asked = Date.now();
    // A webhook's sync: three requests, one after another.
    for (let i = 0; i < 3; i++) await request('webhook');
    const took = Date.now() - asked;
    // Each waited at most three pushes' turns (20 ms apart at 50/s), not the burst's 2.4 s.
    expect(took).toBeLessThan(600);
    await Promise.all(burst);
    const hooks = order.flatMap((lane, i) => (lane === 'webhook' ? [i] : []));
    expect(hooks).toHaveLength(3);
    expect(order.length).toBe(123);
  });

  it('lets a round go on at a turn in four beside a burst that would take every turn', async () => {
    const queue = new RequestQueue({ requestsPerSecond: 40, concurrency: 4 });
    const started: Lane[] = [];
    const request = (lane: Lane) =>
      inLane(lane, () =>
        queue.run(async () => {
          started.push(lane);
          await sleep(5);
        }),
      );
    const work = [
      ...Array.from({ length: 60 }, () => request('push')),
      ...Array.from({ length: 20 }, () => request('poll')),
    ];
    await sleep(1_000);
    // Of the first 40 turns, polling had about one in four.
    const polls = started.slice(0, 40).filter((lane) => lane === 'poll').length;
    expect(polls).toBeGreaterThanOrEqual(8);
    expect(polls).toBeLessThanOrEqual(11);
    await Promise.all(work);
  });
});

describe('RequestQueue: counted when requests go out', () => {
  it('holds a request that goes out late, so no second sees more than the rate', async () => {
    const queue = new RequestQueue({ requestsPerSecond: 10, concurrency: 4 });
    const sentAt: number[] = [];
    const send = (delayMs: number) =>
      queue.run(async (_cut, sending) => {
        await sleep(delayMs); // its token, its file: the request goes out this much later
        await sending();
        sentAt.push(Date.now());
      });
    // Requests whose turns come 100 ms apart; every fourth goes out 300 ms after its turn.
    const all = Array.from({ length: 36 }, (_, i) => send(i % 4 === 0 ? 300 : 0));
    await Promise.all(all);
    expect(sentAt).toHaveLength(36);
    expect(busiestSecond(sentAt)).toBeLessThanOrEqual(10);
  });

  it('refuses a request held before going out when the run stops, as not sent', async () => {
    const queue = new RequestQueue({ requestsPerSecond: 2, concurrency: 4 });
    const late = queue.run(async (_cut, sending) => {
      await sleep(1_200); // its turn has left the window by then
      await sending();
      return 'sent';
    });
    // One more fits in the window and goes at once; two more take their turns when those two
    // leave the window, and go out at once.
    const others = [0, 1, 2].map(() =>
      queue.run(async (_cut, sending) => {
        await sending();
        return 'sent';
      }),
    );
    expect(await Promise.all(others)).toEqual(['sent', 'sent', 'sent']);
    await sleep(1_300 - 1_040); // the late one is held: the window has the last two
    queue.stop(0);
    await expect(late).rejects.toMatchObject({ mayHaveApplied: false });
  });
});
