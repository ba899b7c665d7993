/**
 * The request governor as an operator sees it: the rate it allows now and the 429s so far, on
 * `/metrics` (docsync_request_rate_allowed, docsync_rate_limited_total) and on the status page's
 * "Request rate" line. The governor is the request queue's, on a virtual clock, told of 429s as
 * the client tells it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BETA } from '../../src/domain/cubic-rate.js';
import { RequestQueue } from '../../src/remote/request-queue.js';
import { Metrics } from '../../src/web/metrics.js';
import type { StatusServer } from '../../src/web/status-server.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';
import { useStateStore } from '../helpers/state-store.js';
import { IDLE_RUNTIME, startTestStatusServer } from '../helpers/status-server.js';
import { VirtualQueueClock } from '../helpers/virtual-queue-clock.js';

const stateStore = useStateStore();
const started: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** A queue at 10 a second that sent a second's worth of requests, the last answered 429. */
async function throttledQueue(clock: VirtualQueueClock) {
  const queue = new RequestQueue({ requestsPerSecond: 10, concurrency: 4, clock });
  const request = (refused: boolean) =>
    queue.run(async (_cut, sending) => {
      const departure = await sending();
      departure.wentOut();
      await clock.sleep(10);
      if (refused) departure.throttled();
    });
  await clock.run(Promise.all(Array.from({ length: 10 }, () => request(false))));
  await clock.run(request(true));
  return { queue, request };
}

describe('the governor on /metrics and the status page', () => {
  it('shows the rate allowed, lowered by a 429, and counts the 429s', async () => {
    const clock = new VirtualQueueClock();
    const { queue, request } = await throttledQueue(clock);
    const metrics = new Metrics();
    metrics.watchGovernor(() => queue.governor());
    const server = await startTestStatusServer(stateStore.open(), {
      metrics,
      runtime: () => ({
        ...IDLE_RUNTIME,
        requestsPerSecond: 6.5,
        requestBudgetPerSecond: 10,
        governor: queue.governor(),
      }),
    });
    started.push(server);
    const scrape = async () =>
      parsePrometheusText(await (await fetch(`${server.url}/metrics`)).text());

    let m = await scrape();
    expect(m.types.get('docsync_request_rate_allowed')).toBe('gauge');
    expect(m.types.get('docsync_rate_limited_total')).toBe('counter');
    expect(m.value('docsync_request_rate_allowed')).toBeCloseTo(BETA * 10, 1);
    expect(m.value('docsync_rate_limited_total')).toBe(1);
    // A counter: scraped again, the same 429 is not counted twice; another one is.
    expect((await scrape()).value('docsync_rate_limited_total')).toBe(1);
    await clock.advance(1_500);
    await clock.run(request(true));
    m = await scrape();
    expect(m.value('docsync_rate_limited_total')).toBe(2);
    expect(m.value('docsync_request_rate_allowed')).toBeLessThan(BETA * 10);

    const page = await (await fetch(server.url)).text();
    expect(page).toContain(
      `6.5 / s; allowed ${queue.governor().rate.toFixed(1)} of 10 (queue.requestsPerSecond); 2 answers 429 since the start`,
    );
  });

  it('shows the ceiling as the rate allowed until a 429 comes', async () => {
    const queue = new RequestQueue({
      requestsPerSecond: 10,
      concurrency: 4,
      clock: new VirtualQueueClock(),
    });
    const metrics = new Metrics();
    metrics.watchGovernor(() => queue.governor());
    const m = parsePrometheusText(await metrics.text());
    expect(m.value('docsync_request_rate_allowed')).toBe(10);
    expect(m.value('docsync_rate_limited_total')).toBe(0);
  });
});
