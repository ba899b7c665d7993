/**
 * The request queue's fair turns and its pacing by when requests go out (issue 28), with tasks
 * that take as long as the test says, on a virtual clock (test/helpers/virtual-queue-clock.ts):
 * turns and windows are counted exactly, whatever the machine is doing. The policy itself is
 * test/unit/fair-lanes.test.ts; the pure pacing functions, test/unit/request-pacing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/domain/lanes.js';
import { inLane } from '../../src/remote/request-lane.js';
import { RequestQueue } from '../../src/remote/request-queue.js';
import { VirtualQueueClock } from '../helpers/virtual-queue-clock.js';

/** The most of `times` any span of `span` ms holds (a sliding second by default). */
function busiest(times: readonly number[], span = 1000): number {
  return Math.max(0, ...times.map((t) => times.filter((s) => s > t - span && s <= t).length));
}

/** A queue on a virtual clock, and a request in a lane that takes `ms` in flight. */
function queueAt(requestsPerSecond: number) {
  const clock = new VirtualQueueClock();
  const queue = new RequestQueue({ requestsPerSecond, concurrency: 4, clock });
  const started: { lane: Lane; at: number }[] = [];
  const request = (lane: Lane, ms = 5) =>
    inLane(lane, () =>
      queue.run(async () => {
        started.push({ lane, at: clock.now() });
        await clock.sleep(ms);
      }),
    );
  return { clock, queue, started, request };
}

describe('RequestQueue: fair turns', () => {
  it('gives a webhook a turn in four during a burst of pushes, and the burst the rest', async () => {
    const { clock, started, request } = queueAt(50);
    const burst = Array.from({ length: 120 }, () => request('push'));
    await clock.advance(200);
    // A webhook's sync: three requests, one after another; each passed over three times by
    // the pushes ahead of it, then taking the fourth turn, not waiting the burst's 2.4 s.
    const passedOver: number[] = [];
    const waited: number[] = [];
    const sync = (async () => {
      for (let i = 0; i < 3; i++) {
        const asked = started.length;
        const askedAt = clock.now();
        await request('webhook');
        const turn = started.findIndex((s, j) => j >= asked && s.lane === 'webhook');
        passedOver.push(turn - asked);
        waited.push(started[turn]!.at - askedAt);
      }
    })();
    await clock.run(sync);
    expect(passedOver).toEqual([3, 3, 3]);
    // Three pushes' turns and its own, a slot of the 1,040 ms window (50 a window) apart.
    for (const ms of waited) expect(ms).toBeLessThanOrEqual(4 * (1040 / 50));
    await clock.run(Promise.all(burst));
    expect(started.filter((s) => s.lane === 'webhook')).toHaveLength(3);
    expect(started).toHaveLength(123);
  });

  it('lets a round go on at a turn in four beside a burst that would take every turn', async () => {
    const { clock, started, request } = queueAt(40);
    const work = [
      ...Array.from({ length: 60 }, () => request('push')),
      ...Array.from({ length: 20 }, () => request('poll')),
    ];
    await clock.run(Promise.all(work));
    // The first four pushes took the connections as they came, before any poll waited. From
    // then on polling takes every fourth turn while the burst has pushes waiting: never more
    // than three pushes in a row ahead of it.
    const turns = started.slice(4, 44).map((s) => s.lane);
    expect(turns.filter((lane) => lane === 'poll')).toHaveLength(10);
    const pushRuns = turns.join(' ').split('poll');
    expect(Math.max(...pushRuns.map((run) => run.split('push').length - 1))).toBe(3);
    expect(started).toHaveLength(80);
  });
});

describe('RequestQueue: the rate', () => {
  it('spaces a backlog a slot of the window apart once it is half full, never a burst that fills it', async () => {
    // 10/s: 10 starts per 1,040 ms window, a slot every 104 ms.
    const { clock, started, request } = queueAt(10);
    const backlog = Array.from({ length: 30 }, () => request('push'));
    await clock.run(Promise.all(backlog));
    const at = started.map((s) => s.at);
    // Half the window at once (as many as the connections allow), then a slot apart.
    expect(at.slice(0, 5).map((t) => t - at[0]!)).toEqual([0, 0, 0, 0, 5]);
    const gaps = at.slice(5).map((t, i) => t - at[i + 4]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(104);
    expect(busiest(at, 1040)).toBeLessThanOrEqual(10);
  });

  it('lets a few requests that fit in the window go at once, however full it is', async () => {
    const { clock, started, request } = queueAt(10);
    // Seven requests fill most of the window.
    await clock.run(Promise.all(Array.from({ length: 7 }, () => request('poll', 1))));
    const before = clock.now();
    await clock.run(Promise.all([request('webhook', 1), request('webhook', 1)]));
    expect(started.slice(-2).map((s) => s.at - before)).toEqual([0, 0]);
  });
  it("holds every request through a 429's pause, which a shorter pause does not shorten", async () => {
    const { clock, queue, started, request } = queueAt(10);
    const start = clock.now();
    queue.pauseFor(2_000);
    queue.pauseFor(500);
    await clock.run(Promise.all([request('push'), request('poll')]));
    expect(started.map((s) => s.at - start)).toEqual([2_000, 2_000]);
  });
});

describe('RequestQueue: counted when requests go out', () => {
  it('holds a request that goes out late, so no second sees more than the rate', async () => {
    // 2/s: 2 a window of 1,040 ms.
    const { clock, queue } = queueAt(2);
    const sentAt: Record<string, number> = {};
    const send = (name: string, lateMs: number) =>
      queue.run(async (_cut, sending) => {
        await clock.sleep(lateMs); // its token, its file: the request goes out this much later
        await sending();
        sentAt[name] = clock.now();
      });
    const start = clock.now();
    // The late one's turn leaves the window (at 1,040 ms) before it goes out (at 1,200 ms); two
    // more have taken their turns then and gone out, so it waits for them to leave in turn.
    const all = [send('late', 1_200), send('b', 0), send('c', 0), send('d', 0)];
    await clock.run(Promise.all(all));
    const times = Object.values(sentAt);
    expect(busiest(times)).toBeLessThanOrEqual(2);
    expect(busiest(times, 1040)).toBeLessThanOrEqual(2);
    expect(sentAt.late! - start).toBe(2 * 1040);
  });

  it('counts a request from when it really went out, if that is later than it said', async () => {
    const { clock, queue } = queueAt(10);
    const sentAt: number[] = [];
    // Each says it is sending; every fourth (a stall of the event loop) really goes out 300 ms
    // after that, beside those that said so after it.
    const send = (stallMs: number) =>
      queue.run(async (_cut, sending) => {
        const wentOut = await sending();
        await clock.sleep(stallMs);
        wentOut();
        sentAt.push(clock.now());
        await clock.sleep(5);
      });
    await clock.run(Promise.all(Array.from({ length: 36 }, (_, i) => send(i % 4 === 0 ? 300 : 0))));
    expect(sentAt).toHaveLength(36);
    expect(busiest(sentAt, 1040)).toBeLessThanOrEqual(10);
  });

  it('lets no second see more than the rate, whatever the lanes and however late requests go out', async () => {
    const { clock, queue } = queueAt(10);
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const wentOutAt: number[] = [];
    // Waves of requests in changing lanes; each reads its token or file for a while before
    // saying it is sending, may stall before it really goes out, then waits for its answer.
    const request = () =>
      inLane(pick(['push', 'webhook', 'watcher', 'poll'] as const), () =>
        queue.run(async (_cut, sending) => {
          await clock.sleep(pick([0, 0, 0, 50, 400, 1_100]));
          const wentOut = await sending();
          await clock.sleep(pick([0, 0, 0, 30, 300]));
          wentOut();
          wentOutAt.push(clock.now());
          await clock.sleep(pick([5, 40, 200]));
        }),
      );
    const all: Promise<void>[] = [];
    for (let wave = 0; wave < 20; wave++) {
      const size = Math.floor(random() * 30);
      for (let i = 0; i < size; i++) all.push(request());
      await clock.advance(Math.floor(random() * 3_000));
    }
    await clock.run(Promise.all(all));
    expect(wentOutAt).toHaveLength(all.length);
    expect(busiest(wentOutAt)).toBeLessThanOrEqual(10);
  });

  it('refuses a request held before going out when the run stops, as not sent', async () => {
    const { clock, queue } = queueAt(2);
    let late = 'waiting';
    const lateRequest = queue.run(async (_cut, sending) => {
      await clock.sleep(1_200); // its turn has left the window by then
      await sending();
      return 'sent';
    });
    lateRequest.then(
      (outcome) => (late = outcome),
      () => (late = 'refused'),
    );
    // One more fits in the window and goes at once; two more take their turns when those two
    // leave the window (at 1,040 ms), and go out at once.
    const others = [0, 1, 2].map(() =>
      queue.run(async (_cut, sending) => {
        await sending();
        return 'sent';
      }),
    );
    expect(await clock.run(Promise.all(others))).toEqual(['sent', 'sent', 'sent']);
    await clock.advance(1_300 - 1_040); // at 1,200 ms the late one is held: the window has the last two
    expect(late).toBe('waiting');
    queue.stop(0);
    await expect(lateRequest).rejects.toMatchObject({ mayHaveApplied: false });
  });
});
