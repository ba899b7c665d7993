/**
 * The status page's actions over HTTP: a POST acts only with the page's CSRF token, from the
 * page's own host and origin; a GET never changes anything. The daemon's side (a real sync) is
 * in status-page-browser.test.ts; here the actions are a recording stand-in for the daemon.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { OwnerRef } from '../../src/domain/types.js';
import type { StateStore } from '../../src/state/state-store.js';
import { Metrics } from '../../src/web/metrics.js';
import {
  type ActionOutcome,
  OPERATOR_ACTIONS_NOT_AVAILABLE,
  type OperatorActions,
  type PageActions,
} from '../../src/web/page-actions.js';
import { type StatusServer, startStatusServer } from '../../src/web/status-server.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';
import { silentLogger } from '../helpers/webhook-receiver.js';

const stateStore = useStateStore();
const started: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

function recordingActions(operator: OperatorActions = OPERATOR_ACTIONS_NOT_AVAILABLE) {
  const synced: OwnerRef[] = [];
  const actions: PageActions = {
    operator,
    syncEntity: (owner) => {
      synced.push(owner);
      return { kind: 'done', message: `A sync of ${owner.kind} ${owner.id} is queued.` };
    },
  };
  return { actions, synced };
}

async function start(state: StateStore, actions: PageActions) {
  const server = await startStatusServer({
    config: {
      status: { enabled: true, listen: { host: '127.0.0.1', port: 0 } },
      schedule: { cron: '*/5 * * * *', fullReconcileCron: '30 2 * * *', maxPollShare: 1 },
      store: { root: '/srv/documents' },
    },
    state,
    metrics: new Metrics(),
    runtime: () => ({
      nextCycleAt: null,
      queueDepth: 0,
      requestsPerSecond: 0,
      watcherMode: 'events',
      tokenValid: true,
    }),
    logger: silentLogger(),
    actions,
  });
  started.push(server);
  return server;
}

async function tokenOf(server: StatusServer): Promise<string> {
  const page = await (await fetch(server.url)).text();
  return /<meta name="csrf-token" content="([^"]+)">/.exec(page)![1]!;
}

/** A form POST as a browser sends it; `headers` may name another host or origin. */
function post(
  server: StatusServer,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          accept: 'application/json',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const changesOf = (state: StateStore) =>
  state.db.prepare<[], number>('SELECT total_changes()').pluck().get()!;

describe('status page actions', () => {
  it("refuses a POST without the page's token, or with a wrong one (403), and does nothing", async () => {
    const state = stateStore.open();
    const { actions, synced } = recordingActions();
    const server = await start(state, actions);
    const token = await tokenOf(server);
    const owner = { kind: TRUST.kind, id: TRUST.id };

    const none = await post(server, '/actions/sync', owner);
    const wrong = await post(server, '/actions/sync', { ...owner, csrf: `${token.slice(1)}x` });
    const wrongHeader = await post(server, '/actions/sync', owner, { 'x-csrf-token': 'guess' });

    for (const answer of [none, wrong, wrongHeader]) {
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({
        ok: false,
        message: expect.stringContaining("does not carry this page's token"),
      });
    }
    expect(synced).toEqual([]);
  });

  it('refuses the right token from another host name (DNS rebinding) or another origin', async () => {
    const state = stateStore.open();
    const { actions, synced } = recordingActions();
    const server = await start(state, actions);
    const token = await tokenOf(server);
    const port = new URL(server.url).port;
    const fields = { kind: TRUST.kind, id: TRUST.id, csrf: token };

    const rebound = await post(server, '/actions/sync', fields, { host: `evil.example:${port}` });
    const crossSite = await post(server, '/actions/sync', fields, {
      origin: 'http://evil.example',
    });

    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).message).toContain('is not this machine');
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.body).message).toContain('comes from http://evil.example');
    expect(synced).toEqual([]);
  });

  it('queues a sync with the token, from the form field or the header', async () => {
    const state = stateStore.open();
    const { actions, synced } = recordingActions();
    const server = await start(state, actions);
    const token = await tokenOf(server);
    const port = new URL(server.url).port;

    const byField = await post(server, '/actions/sync', { ...COMPANY, csrf: token });
    const byHeader = await post(
      server,
      '/actions/sync',
      { ...TRUST },
      {
        'x-csrf-token': token,
        host: `localhost:${port}`,
        origin: `http://localhost:${port}`,
      },
    );
    const badKind = await post(server, '/actions/sync', { kind: 'person', id: '1', csrf: token });

    expect(byField.status).toBe(200);
    expect(JSON.parse(byField.body)).toEqual({
      ok: true,
      message: `A sync of company ${COMPANY.id} is queued.`,
    });
    expect(byHeader.status).toBe(200);
    expect(badKind.status).toBe(400);
    expect(synced).toEqual([COMPANY, TRUST]);
  });

  it('changes nothing on GET: the action routes answer 405, reading every page writes nothing', async () => {
    const state = stateStore.open();
    const { actions, synced } = recordingActions();
    const server = await start(state, actions);
    const token = await tokenOf(server);
    const before = changesOf(state);

    const query = `kind=trust&id=${TRUST.id}&csrf=${token}&conflict=1&resolution=keep-both`;
    for (const path of ['/actions/sync', '/actions/approve-deletes', '/actions/resolve-conflict']) {
      const answer = await fetch(`${server.url}${path}?${query}`);
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
    for (const path of ['/', '/?q=acme&sort=lag&page=3&show=errors', '/healthz', '/metrics']) {
      await (await fetch(`${server.url}${path}`)).text();
    }

    expect(synced).toEqual([]);
    expect(changesOf(state), 'no row of the state was written').toBe(before);
  });

  it('answers 501 for approve and resolve until the operator modules are wired', async () => {
    const state = stateStore.open();
    const { actions, synced } = recordingActions();
    const server = await start(state, actions);
    const token = await tokenOf(server);

    const approve = await post(server, '/actions/approve-deletes', { ...TRUST, csrf: token });
    const resolve = await post(server, '/actions/resolve-conflict', {
      conflict: '7',
      resolution: 'keep-mine',
      csrf: token,
    });

    for (const answer of [approve, resolve]) {
      expect(answer.status).toBe(501);
      expect(JSON.parse(answer.body).message).toMatch(/^not available in this build/);
    }
    expect(synced).toEqual([]);
  });

  it("hands approve and resolve to the operator's actions and queues the sync a decision names", async () => {
    const state = stateStore.open();
    const asked: unknown[] = [];
    const done = (message: string, syncAfter?: OwnerRef): ActionOutcome => ({
      kind: 'done',
      message,
      ...(syncAfter ? { syncAfter } : {}),
    });
    const { actions, synced } = recordingActions({
      approveHeldDeletes: async (request) => {
        asked.push(request);
        return done('approved', request.owner ?? undefined);
      },
      resolveConflict: async (request) => {
        asked.push(request);
        return request.conflictId === 404
          ? { kind: 'not-found', message: 'no conflict 404' }
          : done('resolved', COMPANY);
      },
    });
    const server = await start(state, actions);
    const token = await tokenOf(server);

    const one = await post(server, '/actions/approve-deletes', { ...TRUST, csrf: token });
    const all = await post(server, '/actions/approve-deletes', { scope: 'all', csrf: token });
    const resolved = await post(server, '/actions/resolve-conflict', {
      conflict: '3',
      resolution: 'keep-theirs',
      csrf: token,
    });
    const missing = await post(server, '/actions/resolve-conflict', {
      conflict: '404',
      resolution: 'keep-both',
      csrf: token,
    });
    const bad = await post(server, '/actions/resolve-conflict', {
      conflict: '3',
      resolution: 'keep-neither',
      csrf: token,
    });

    expect([one.status, all.status, resolved.status, missing.status, bad.status]).toEqual([
      200, 200, 200, 404, 400,
    ]);
    expect(asked).toEqual([
      { owner: TRUST },
      { owner: null },
      { conflictId: 3, resolution: 'keep-theirs' },
      { conflictId: 404, resolution: 'keep-both' },
    ]);
    expect(synced).toEqual([TRUST, COMPANY]);
  });

  it('answers a browser without script with a page that says what happened and links back', async () => {
    const state = stateStore.open();
    const { actions } = recordingActions();
    const server = await start(state, actions);
    const token = await tokenOf(server);

    const answer = await post(
      server,
      '/actions/sync',
      { ...TRUST, csrf: token },
      { accept: 'text/html' },
    );

    expect(answer.status).toBe(200);
    expect(answer.body).toContain(`<p>A sync of trust ${TRUST.id} is queued.</p>`);
    expect(answer.body).toContain('<a href="/">Back to the status page</a>');
  });
});
