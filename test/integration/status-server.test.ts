import { afterEach, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/state/state-store.js';
import { Metrics } from '../../src/web/metrics.js';
import type { RuntimeStatus } from '../../src/web/runtime-status.js';
import type { StatusServer } from '../../src/web/status-server.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';
import { startTestStatusServer } from '../helpers/status-server.js';

const stateStore = useStateStore();
const started: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

const ROOT = '/srv/documents/compliance';
const MINUTE = 60_000;

function runtimeWith(overrides: Partial<RuntimeStatus> = {}): RuntimeStatus {
  return {
    nextCycleAt: '2030-01-01T00:05:00.000Z',
    queueDepth: 7,
    requestsPerSecond: 2.5,
    watcherMode: 'events',
    tokenValid: true,
    ...overrides,
  };
}

async function start(
  state: StateStore,
  options: {
    runtime?: Partial<RuntimeStatus>;
    healthMaxAgeSeconds?: number;
    metrics?: Metrics;
  } = {},
) {
  const metrics = options.metrics ?? new Metrics();
  const server = await startTestStatusServer(state, {
    status: options.healthMaxAgeSeconds ? { healthMaxAgeSeconds: options.healthMaxAgeSeconds } : {},
    config: { store: { root: ROOT } },
    metrics,
    runtime: () => runtimeWith(options.runtime),
  });
  started.push(server);
  return { server, metrics };
}

function cycle(state: StateStore, result: 'ok' | 'partial' | 'error' | null, endedAgoMs: number) {
  const id = state.cycles.start({ trigger: 'cron', startedAt: Date.now() - endedAgoMs - 1000 });
  if (result) {
    state.cycles.finish(id, {
      result,
      finishedAt: Date.now() - endedAgoMs,
      ...(result === 'error' ? { error: 'service unreachable' } : {}),
    });
  }
}

async function health(server: StatusServer) {
  const response = await fetch(`${server.url}/healthz`);
  return { status: response.status, body: (await response.json()) as any };
}

describe('status server', () => {
  it('/healthz is 503 before any cycle, 200 after a recent good one', async () => {
    const state = stateStore.open();
    const { server } = await start(state);

    const before = await health(server);
    expect(before.status).toBe(503);
    expect(before.body.reasons).toEqual(['no sync has finished yet']);

    cycle(state, 'ok', MINUTE);
    const after = await health(server);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ status: 'ok', healthy: true, maxAgeSeconds: 1800 });
  });

  it('/healthz stays 200 through a failed sync within the grace: a blip is no outage', async () => {
    const state = stateStore.open();
    const { server } = await start(state);
    cycle(state, 'ok', 10 * MINUTE);
    cycle(state, 'error', MINUTE);
    const answer = await health(server);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ok', healthy: true, reasons: [] });
  });

  it('/healthz stays 200 while a cycle runs and after a partial one', async () => {
    const state = stateStore.open();
    const { server } = await start(state);
    cycle(state, 'ok', 20 * MINUTE);
    cycle(state, 'partial', MINUTE);
    cycle(state, null, 0);
    expect((await health(server)).status).toBe(200);
  });

  it.each([
    [
      'every sync has failed for longer than the grace',
      (s: StateStore) => {
        cycle(s, 'ok', 40 * MINUTE);
        cycle(s, 'error', MINUTE);
      },
      {},
      /^no sync has reached the service for 40 min \(limit 30 min\); the last sync ended with error: service unreachable$/,
    ],
    [
      'the last good cycle is too old',
      (s: StateStore) => cycle(s, 'ok', 3 * MINUTE),
      { healthMaxAgeSeconds: 120 },
      /no sync has reached the service for 3 min \(limit 2 min\)/,
    ],
    [
      'the token is not valid',
      (s: StateStore) => cycle(s, 'ok', MINUTE),
      { runtime: { tokenValid: false } },
      /token is not valid/,
    ],
  ])('/healthz is 503 with a JSON reason when %s', async (_name, arrange, options, reason) => {
    const state = stateStore.open();
    arrange(state);
    const { server } = await start(state, options);

    const answer = await health(server);

    expect(answer.status).toBe(503);
    expect(answer.body.status).toBe('unhealthy');
    expect(answer.body.reasons.join('\n')).toMatch(reason);
  });

  it('/metrics exposes docsync metrics in the Prometheus text format', async () => {
    const state = stateStore.open();
    state.conflicts.record({
      owner: TRUST,
      documentId: '1',
      copyPath: 'Trusts/T/a (conflict).pdf',
      winner: 'remote',
      occurredAt: Date.now(),
    });
    const { server, metrics } = await start(state, { runtime: { watcherMode: 'scanning' } });
    metrics.cycleFinished('ok');
    metrics.cycleFinished('ok');
    metrics.cycleFinished('error');
    metrics.serviceResponse({ route: 'GET /companies/{companyId}/documents', status: 200 });
    metrics.serviceResponse({ route: 'GET /companies/{companyId}/documents', status: 429 });
    metrics.serviceResponse({ route: 'POST /oauth/token', status: 'network' });
    metrics.railTripped();
    metrics.webhookEvent('accepted');
    metrics.webhookEvent('bad-signature');

    const response = await fetch(`${server.url}/metrics`);
    const text = await response.text();
    const m = parsePrometheusText(text);

    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(m.types.get('docsync_cycles_total')).toBe('counter');
    expect(m.types.get('docsync_queue_depth')).toBe('gauge');
    expect(m.value('docsync_cycles_total', { result: 'ok' })).toBe(2);
    expect(m.value('docsync_cycles_total', { result: 'error' })).toBe(1);
    const route = 'GET /companies/{companyId}/documents';
    expect(m.value('docsync_service_requests_total', { route, status: '429' })).toBe(1);
    expect(
      m.value('docsync_service_requests_total', { route: 'POST /oauth/token', status: 'network' }),
    ).toBe(1);
    expect(m.value('docsync_rail_trips_total')).toBe(1);
    expect(m.value('docsync_webhook_events_total', { result: 'bad-signature' })).toBe(1);
    expect(m.value('docsync_queue_depth')).toBe(7);
    expect(m.value('docsync_conflicts')).toBe(1);
    expect(m.value('docsync_watcher_mode', { mode: 'scanning' })).toBe(1);
    expect(m.value('docsync_watcher_mode', { mode: 'events' })).toBe(0);
  });

  it('shows the lanes, the poll round and the coverage on the page and in /metrics', async () => {
    const state = stateStore.open();
    const name = 'Acme Pty Ltd';
    state.entities.upsert({
      entity: {
        kind: 'company',
        id: COMPANY.id,
        name,
        number: null,
        businessNumber: null,
        raw: {},
      },
      folder: `Companies/${name}`,
      matchedBy: 'created',
      updatedAt: 0,
    });
    state.cursors.markSynced(COMPANY, Date.now() - 10 * MINUTE);
    state.cursors.markSynced(TRUST, Date.now() - MINUTE);
    const lane = (waiting: number, started: number, waitedMs: number) => ({
      syncsWaiting: waiting,
      requestsWaiting: waiting * 2,
      requestsStarted: started,
      requestsWaitedMs: waitedMs,
    });
    let polled = 300;
    const { server } = await start(state, {
      runtime: {
        get work() {
          return {
            lanes: {
              push: lane(0, 10, 200),
              webhook: lane(1, 20, 400),
              watcher: lane(0, 0, 0),
              poll: lane(3, polled, 900_000),
            },
            syncsRunning: 5,
            round: { full: true, left: 1234, total: 5000, startedAt: Date.now() - 4 * MINUTE },
            hotEntities: 17,
            coveragePeriodMs: 1_000_000,
          };
        },
      },
    });
    const page = await (await fetch(server.url)).text();
    expect(page).toContain('3766 of 5000 entities listed (full listings), started 4 min ago');
    expect(page).toContain('17 min'); // the coverage period
    // The company, synced 10 minutes ago, within the coverage period.
    expect(page).toContain('<th>Stalest entity</th><td>Acme Pty Ltd: last synced 10 min ago</td>');
    expect(page).toMatch(
      /<td>poll<\/td><td>3<\/td><td>6<\/td><td>300<\/td><td>3000 ms<\/td><td>91 %<\/td>/,
    );

    const scrape = async () =>
      parsePrometheusText(await (await fetch(`${server.url}/metrics`)).text());
    let m = await scrape();
    expect(m.value('docsync_lane_waiting', { lane: 'poll', what: 'syncs' })).toBe(3);
    expect(m.value('docsync_lane_requests_total', { lane: 'poll' })).toBe(300);
    expect(m.value('docsync_lane_wait_seconds_total', { lane: 'poll' })).toBe(900);
    expect(m.value('docsync_coverage_period_seconds')).toBe(1000);
    expect(m.value('docsync_poll_round_entities_left')).toBe(1234);
    expect(m.value('docsync_poll_round_entities')).toBe(5000);
    // The least recently synced entity: the company, 10 minutes ago.
    expect(m.value('docsync_stalest_entity_seconds')).toBeGreaterThanOrEqual(600);
    expect(m.value('docsync_stalest_entity_seconds')).toBeLessThan(610);
    // The scheduler's totals become counters that only grow by what was added since.
    polled = 350;
    m = await scrape();
    expect(m.value('docsync_lane_requests_total', { lane: 'poll' })).toBe(350);
  });

  it('shows a conflict and an item in error on the page, escaped, with file links', async () => {
    const state = stateStore.open();
    cycle(state, 'ok', MINUTE);
    state.conflicts.record({
      owner: COMPANY,
      documentId: '5001',
      copyPath:
        'Companies/Acme (123 456 789)/2024-05-01 Minutes [5001]/minutes (conflict 2024-05-01 0930).pdf',
      winner: 'local',
      occurredAt: Date.now(),
    });
    state.problems.record(
      { owner: TRUST, path: 'Trusts/Smith <Family> Trust/new folder' },
      'upload refused: 415 <unsupported type>',
    );
    const { server } = await start(state);

    const response = await fetch(`${server.url}/`);
    const page = await response.text();

    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(page).toContain('<noscript><meta http-equiv="refresh" content="10"></noscript>');
    expect(page).toContain('<h3>Conflicts (1)</h3>');
    expect(page).toContain(
      'href="file:///srv/documents/compliance/Companies/Acme%20(123%20456%20789)/2024-05-01%20Minutes%20%5B5001%5D/minutes%20(conflict%202024-05-01%200930).pdf"',
    );
    expect(page).toContain('Items in error (1)');
    expect(page).toContain('upload refused: 415 &lt;unsupported type&gt;');
    expect(page).toContain('Trusts/Smith &lt;Family&gt; Trust/new folder');
    expect(page).not.toContain('<Family>');
    expect(page).toContain('2030-01-01T00:05:00.000Z');
    // Two things wait for a person: the header says so, not "Healthy" (issue 27).
    expect(page).toContain('<strong>Needs attention (2)</strong>');
    expect(page).not.toContain('Healthy');
    // Nothing loaded from elsewhere: the page works on a server without internet.
    expect(page).not.toMatch(/<script[^>]*\bsrc=|<link\b|<img\b/);
    // Without a daemon to act, no buttons.
    expect(page).not.toContain('<form method="post"');
  });

  it('says which syncs wait, which failed and why, and when each is tried again', async () => {
    const state = stateStore.open();
    cycle(state, 'ok', MINUTE);
    const quiet = await (await fetch(`${(await start(state)).server.url}/`)).text();
    expect(quiet).toContain('<tr><th>Syncs waiting</th><td>none</td></tr>');
    state.work.observe(COMPANY, { reason: 'watcher', lane: 'watcher', at: 1000 });
    state.work.observe(TRUST, { reason: 'webhook', lane: 'webhook', at: 1000 });
    state.work.failed(TRUST, 'GET /trusts/20053/documents answered <503>', () =>
      Date.UTC(2030, 0, 1),
    );
    const { server } = await start(state);
    const page = await (await fetch(`${server.url}/`)).text();
    expect(page).toContain(
      'Syncs waiting</th><td>2 entities, 1 failing: trust 20053 failed 1 time (GET /trusts/20053/documents answered &lt;503&gt;), tried again at <time datetime="2030-01-01T00:00:00.000Z">',
    );
  });

  it('answers 404 elsewhere and 405 to other methods', async () => {
    const state = stateStore.open();
    const { server } = await start(state);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    const post = await fetch(`${server.url}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers 500 and keeps running when the state cannot be read', async () => {
    const state = stateStore.open();
    const { server } = await start(state, { runtime: {} });
    state.close();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(500);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
  });
});
