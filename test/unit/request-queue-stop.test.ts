/**
 * The request queue's stop (Ctrl-C during `--once`, issue 27 case 6): at the service's rate the
 * queue holds many seconds of requests. From the stop nothing waiting starts, each is refused as
 * "not sent"; what is in flight gets the grace, then is cut through its signal.
 */
import { describe, expect, it } from 'vitest';
import { RunStoppedError } from '../../src/domain/errors.js';
import { inLane } from '../../src/remote/request-lane.js';
import { RequestQueue } from '../../src/remote/request-queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request that runs until it is cut (or `ms` passes), and says which. */
const inFlight = (ms: number) => (cut: AbortSignal) =>
  new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('answered'), ms);
    cut.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve('cut');
    });
  });

describe('RequestQueue.stop', () => {
  it('refuses every waiting request at once, in every lane, and starts nothing after', async () => {
    // 2 a second: ten requests are five seconds of waiting.
    const queue = new RequestQueue({ requestsPerSecond: 2, concurrency: 2 });
    let started = 0;
    const task = async () => {
      started++;
      return 'answered';
    };
    const waiting = [
      ...Array.from({ length: 6 }, () => queue.run(task)),
      ...Array.from({ length: 4 }, () => inLane('poll', () => queue.run(task))),
    ];
    const settled = Promise.allSettled(waiting);
    await sleep(20);
    const before = started;
    const stoppedAt = Date.now();
    queue.stop(1_000);
    const results = await settled;
    expect(Date.now() - stoppedAt).toBeLessThan(100);
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
    const queue = new RequestQueue({ requestsPerSecond: Number.POSITIVE_INFINITY, concurrency: 4 });
    const quick = queue.run(inFlight(50));
    const slow = queue.run(inFlight(10_000));
    await sleep(10);
    const stoppedAt = Date.now();
    queue.stop(300);
    expect(queue.stopping.aborted).toBe(true);
    expect(queue.cut.aborted).toBe(false);
    expect(await quick).toBe('answered');
    expect(await slow).toBe('cut');
    const took = Date.now() - stoppedAt;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1_000);
    expect(queue.cut.reason).toBeInstanceOf(RunStoppedError);
  });
});
