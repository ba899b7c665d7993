/**
 * The request queue's fair turns and its governor, with tasks that take as long as the test
 * says, on a virtual clock (test/helpers/virtual-queue-clock.ts): turns and spacings are counted
 * exactly, whatever the machine is doing. The policies themselves are
 * test/unit/fair-lanes.test.ts and test/unit/request-governor.test.ts; the governor's rules
 * through the queue, test/unit/request-queue-governor.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/domain/lanes.js';
import { ARRIVAL_MARGIN_MS, OUT_SLACK_MS, spacingMs } from '../../src/domain/request-governor.js';
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
    // Three pushes' turns and its own, a spacing apart.
    for (const ms of waited) expect(ms).toBeLessThanOrEqual(4 * spacingMs(50));
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
  it('sends a backlog evenly spaced from its first request, never two at once', async () => {
    const { clock, started, request } = queueAt(10);
    const backlog = Array.from({ length: 30 }, () => request('push'));
    await clock.run(Promise.all(backlog));
    const at = started.map((s) => s.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(spacingMs(10));
    expect(Math.max(...gaps)).toBeLessThan(spacingMs(10) + 1);
    expect(busiest(at)).toBeLessThanOrEqual(10);
  });

  it('spaces a few requests after a quiet spell too: the first at once, the next a spacing later', async () => {
    const { clock, started, request } = queueAt(10);
    await clock.run(Promise.all(Array.from({ length: 7 }, () => request('poll', 1))));
    await clock.advance(5_000);
    const before = clock.now();
    await clock.run(Promise.all([request('webhook', 1), request('webhook', 1)]));
    expect(started.slice(-2).map((s) => s.at - before)).toEqual([0, spacingMs(10)]);
  });
});

describe('RequestQueue: counted when requests go out', () => {
  it('gives a request that took too long to go out a turn of its own, so no second sees more than the rate', async () => {
    const { clock, queue } = queueAt(2);
    const sentAt: Record<string, number> = {};
    const send = (name: string, lateMs: number) =>
      queue.run(async (_cut, sending) => {
        await clock.sleep(lateMs); // its token, its file: the request goes out this much later
        (await sending()).wentOut();
        sentAt[name] = clock.now();
      });
    const start = clock.now();
    // The late one holds the next turn for OUT_WAIT_MS only (then it is taken to have gone
    // out, a slack early); the others go meanwhile, and when it is ready at last it waits a
    // spacing after the last of them.
    const all = [send('late', 3_000), send('b', 0), send('c', 0), send('d', 0)];
    await clock.run(Promise.all(all));
    const times = Object.values(sentAt).sort((a, b) => a - b);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(spacingMs(2));
    expect(sentAt.late! - start).toBe(1_000 - OUT_SLACK_MS + 4 * spacingMs(2));
  });

  it('counts a request from when its bytes went out, and holds the next until then', async () => {
    const { clock, queue } = queueAt(10);
    const sentAt: number[] = [];
    // Each says it is sending; every fourth (a new connection, its handshake) really goes out
    // 300 ms after that.
    const send = (connectMs: number) =>
      queue.run(async (_cut, sending) => {
        const departure = await sending();
        await clock.sleep(connectMs);
        departure.wentOut();
        sentAt.push(clock.now());
        await clock.sleep(5);
      });
    await clock.run(Promise.all(Array.from({ length: 36 }, (_, i) => send(i % 4 === 0 ? 300 : 0))));
    expect(sentAt).toHaveLength(36);
    // A spacing after each went out, less the slack a request late by a timer keeps (once,
    // never added up): eleven never fit in a second and the margin less that slack.
    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(spacingMs(10) - OUT_SLACK_MS);
    expect(busiest(sentAt, 1000 + ARRIVAL_MARGIN_MS - OUT_SLACK_MS)).toBeLessThanOrEqual(10);
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
    // saying it is sending, may take a while to connect, then waits for its answer.
    const request = () =>
      inLane(pick(['push', 'webhook', 'watcher', 'poll'] as const), () =>
        queue.run(async (_cut, sending) => {
          await clock.sleep(pick([0, 0, 0, 50, 400, 1_100]));
          const departure = await sending();
          await clock.sleep(pick([0, 0, 0, 30, 300]));
          departure.wentOut();
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
    const start0 = clock.now();
    let late = 'waiting';
    const lateRequest = queue.run(async (_cut, sending) => {
      await clock.sleep(3_000); // the others have taken their turns by then
      await sending();
      return 'sent';
    });
    lateRequest.then(
      (outcome) => (late = outcome),
      () => (late = 'refused'),
    );
    const others = [0, 1, 2].map(() =>
      queue.run(async (_cut, sending) => {
        await sending();
        return 'sent';
      }),
    );
    expect(await clock.run(Promise.all(others))).toEqual(['sent', 'sent', 'sent']);
    // At 3,000 ms the late one is held: the last of the others went out less than a spacing ago.
    await clock.advance(3_000 - (clock.now() - start0) + 10);
    expect(late).toBe('waiting');
    queue.stop(0);
    await expect(lateRequest).rejects.toMatchObject({ mayHaveApplied: false });
  });
});
