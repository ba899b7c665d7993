/**
 * The request queue's stop (Ctrl-C during `--once`, issue 27 case 6): at the service's rate the
 * queue holds many seconds of requests. From the stop nothing waiting starts, each is refused as
 * "not sent"; what is in flight gets the grace, then is cut through its signal. On a virtual
 * clock: "at once" is without time moving, and the grace is counted to the millisecond.
 */
import { describe, expect, it } from 'vitest';
import { RunStoppedError } from '../../src/domain/errors.js';
import { inLane } from '../../src/remote/request-lane.js';
import { RequestQueue } from '../../src/remote/request-queue.js';
import { VirtualQueueClock } from '../helpers/virtual-queue-clock.js';

describe('RequestQueue.stop', () => {
  it('refuses every waiting request at once, in every lane, and starts nothing after', async () => {
    const clock = new VirtualQueueClock();
    // 2 a second: ten requests are five seconds of waiting.
    const queue = new RequestQueue({ requestsPerSecond: 2, concurrency: 2, clock });
    let started = 0;
    const task = async () => {
      started++;
      return 'answered';
    };
    const waiting = [
      ...Array.from({ length: 6 }, () => queue.run(task)),
      ...Array.from({ length: 4 }, () => inLane('poll', () => queue.run(task))),
    ];
    let refusedAll = false;
    const settled = Promise.allSettled(waiting).finally(() => (refusedAll = true));
    await clock.advance(20);
    const before = started;
    expect(before).toBe(1); // the first; the rest wait a spacing each, for seconds
    queue.stop(1_000);
    await clock.advance(0); // no time passes: refused at once
    expect(refusedAll).toBe(true);
    const results = await settled;
    await clock.advance(10_000);
    expect(started).toBe(before);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(10 - before);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(RunStoppedError);
      expect((r.reason as RunStoppedError).mayHaveApplied).toBe(false);
    }
    await expect(queue.run(task)).rejects.toBeInstanceOf(RunStoppedError);
    expect(queue.laneStats().poll.waiting).toBe(0);
    expect(queue.laneStats().watcher.waiting).toBe(0);
  });

  it('lets what is in flight finish within the grace, and cuts what is still running after it', async () => {
    const clock = new VirtualQueueClock();
    const queue = new RequestQueue({
      requestsPerSecond: Number.POSITIVE_INFINITY,
      concurrency: 4,
      clock,
    });
    /** A request that runs until it is cut (or `ms` passes), and says which, and when. */
    const inFlight = (ms: number) => (cut: AbortSignal) =>
      new Promise<string>((resolve) => {
        clock.sleep(ms).then(() => resolve('answered'));
        cut.addEventListener('abort', () => resolve(`cut at ${clock.now() - stoppedAt}`));
      });
    let stoppedAt = 0;
    const quick = queue.run(inFlight(50));
    const slow = queue.run(inFlight(10_000));
    await clock.advance(10);
    stoppedAt = clock.now();
    queue.stop(300);
    expect(queue.stopping.aborted).toBe(true);
    expect(queue.cut.aborted).toBe(false);
    expect(await clock.run(quick)).toBe('answered');
    await clock.advance(stoppedAt + 299 - clock.now()); // the grace's last millisecond
    expect(queue.cut.aborted).toBe(false);
    expect(await clock.run(slow)).toBe('cut at 300');
    expect(queue.cut.reason).toBeInstanceOf(RunStoppedError);
  });
});
