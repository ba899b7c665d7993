/**
 * The status page's actions over HTTP: a POST acts only with the page's CSRF token, from the
 * page's own host and origin; a GET never changes anything. Approving held deletes and
 * resolving a conflict are the operator's own operations (web/operator-actions.ts) on a real
 * state, folder and simulator, changing them as `docsync deletes approve` and `docsync conflicts
 * resolve` do. The daemon's side (a real sync) is in status-page-browser.test.ts; here "Sync
 * now" is a recording stand-in for the daemon.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { OwnerRef } from '../../src/domain/types.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { operatorActions } from '../../src/web/operator-actions.js';
import type { ActionOutcome, OperatorActions, PageActions } from '../../src/web/page-actions.js';
import type { StatusServer } from '../../src/web/status-server.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';
import { startTestStatusServer } from '../helpers/status-server.js';
import { type SyncHarness, sha256, useSyncHarness } from '../helpers/sync-harness.js';

const stateStore = useStateStore();
const harness = useSyncHarness();
const started: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** For the tests of the routes alone: the operator's actions are not theirs to reach. */
const UNREACHED: OperatorActions = {
  approveHeldDeletes: () => Promise.reject(new Error('not part of this test')),
  resolveConflict: () => Promise.reject(new Error('not part of this test')),
};

function recordingActions(operator: OperatorActions = UNREACHED) {
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

/** The page on `state`; without `actions` it is the page of no running daemon. */
async function start(
  state: StateStore,
  actions: PageActions | undefined,
  status: { host?: string; publicUrl?: string } = {},
  onRemoteDelete: 'trash' | 'delete' = 'trash',
) {
  const server = await startTestStatusServer(state, {
    status: {
      listen: { host: status.host ?? '127.0.0.1', port: 0 },
      ...(status.publicUrl ? { publicUrl: status.publicUrl } : {}),
    },
    config: { onRemoteDelete },
    ...(actions ? { actions } : {}),
  });
  started.push(server);
  return server;
}

async function tokenOf(server: StatusServer): Promise<string> {
  const page = await (await fetch(server.url)).text();
  return /<meta name="csrf-token" content="([^"]+)">/.exec(page)![1]!;
}

/** The listener's port on 127.0.0.1 (also when it listens on every address). */
const local = (server: StatusServer) => `http://127.0.0.1:${new URL(server.url).port}`;

/** A GET as a browser sends it; `headers` may name another host. */
function get(
  server: StatusServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${local(server)}${path}`, { headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end();
  });
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
      `${local(server)}${path}`,
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

/** The hidden fields of the page's Approve button labelled `label`, as the browser sends them. */
async function approveForm(server: StatusServer, label: RegExp): Promise<Record<string, string>> {
  const page = await (await fetch(server.url)).text();
  const forms =
    page.match(/<form method="post" action="\/actions\/approve-deletes".*?<\/form>/gs) ?? [];
  const form = forms.find((f) => label.test(/<button[^>]*>(.*?)<\/button>/s.exec(f)![1]!));
  expect(form, `a button ${label} on the page`).toBeDefined();
  const fields = [...form!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)];
  return Object.fromEntries(fields.map(([, name, value]) => [name!, value!]));
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
    expect(JSON.parse(rebound.body).message).toContain(
      `the host evil.example:${port} is not an address of this page`,
    );
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.body).message).toContain('comes from http://evil.example');
    expect(synced).toEqual([]);
  });

  it('on a LAN listener, serves a rebound host name neither the page nor an action; an IP address and status.publicUrl it serves', async () => {
    const state = stateStore.open();
    const { actions, synced } = recordingActions();
    const server = await start(state, actions, {
      host: '0.0.0.0',
      publicUrl: 'http://docsync.firm.example:8788',
    });
    const port = new URL(server.url).port;
    const token = await tokenOf(server);
    const fields = { kind: TRUST.kind, id: TRUST.id, csrf: token };
    const rebound = { host: `evil.example:${port}` };

    const page = await get(server, '/', rebound);
    const link = await get(server, '/documents/1', rebound);
    const action = await post(server, '/actions/sync', fields, {
      ...rebound,
      origin: `http://evil.example:${port}`,
    });
    const byAddress = await get(server, '/', { host: `192.168.1.20:${port}` });
    const byName = await get(server, '/', { host: 'DocSync.firm.example:8788' });
    const fromLan = await post(server, '/actions/sync', fields, {
      host: `192.168.1.20:${port}`,
      origin: `http://192.168.1.20:${port}`,
    });
    const scraped = await get(server, '/metrics', { host: `monitoring-name:${port}` });

    expect([page.status, link.status, action.status]).toEqual([403, 403, 403]);
    expect(page.body).toBe(
      `refused: the host evil.example:${port} is not an address of this page; open it at ` +
        "127.0.0.1, localhost or this machine's IP address, or set status.publicUrl to the " +
        'address the browsers use\n',
    );
    expect(page.body).not.toContain(token);
    expect([byAddress.status, byName.status, fromLan.status, scraped.status]).toEqual([
      200, 200, 200, 200,
    ]);
    expect(byAddress.body).toContain(token);
    expect(synced).toEqual([TRUST]);
  });

  it('behind an HTTPS proxy (status.publicUrl), the buttons act from its origin, and only from it', async () => {
    const state = stateStore.open();
    const { actions, synced } = recordingActions();
    const server = await start(state, actions, { publicUrl: 'https://docsync.firm.example' });
    const port = new URL(server.url).port;
    const token = await tokenOf(server);
    const fields = { kind: TRUST.kind, id: TRUST.id, csrf: token };
    const fromProxy = { origin: 'https://docsync.firm.example', 'sec-fetch-site': 'same-origin' };

    // A proxy that passes the Host on, and one that names its upstream (nginx's default).
    const passed = await post(server, '/actions/sync', fields, {
      ...fromProxy,
      host: 'docsync.firm.example',
    });
    const upstream = await post(server, '/actions/sync', fields, {
      ...fromProxy,
      host: `127.0.0.1:${port}`,
    });
    const elsewhere = await post(server, '/actions/sync', fields, {
      host: 'docsync.firm.example',
      origin: 'https://evil.example',
    });

    expect([passed.status, upstream.status, elsewhere.status]).toEqual([200, 200, 403]);
    expect(JSON.parse(elsewhere.body).message).toContain('comes from https://evil.example');
    expect(synced).toEqual([TRUST, TRUST]);
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

  it("hands approve and resolve to the operator's actions and queues the sync a decision names", async () => {
    const state = stateStore.open();
    const asked: unknown[] = [];
    const done = (message: string, syncAfter?: OwnerRef): ActionOutcome => ({
      kind: 'done',
      message,
      ...(syncAfter ? { syncAfter: [syncAfter] } : {}),
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

    const seen = { count: '2', newest: '1000' };
    const one = await post(server, '/actions/approve-deletes', { ...TRUST, ...seen, csrf: token });
    const all = await post(server, '/actions/approve-deletes', {
      scope: 'all',
      ...seen,
      csrf: token,
    });
    const unseen = await post(server, '/actions/approve-deletes', { scope: 'all', csrf: token });
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
    expect(unseen.status, 'an approval must say what the page showed').toBe(400);
    expect(asked).toEqual([
      { owner: TRUST, seen: { count: 2, newest: 1000 } },
      { owner: null, seen: { count: 2, newest: 1000 } },
      { conflictId: 3, resolution: 'keep-theirs' },
      { conflictId: 404, resolution: 'keep-both' },
    ]);
    expect(synced).toEqual([TRUST, COMPANY]);
  });

  it('without a daemon to carry them out, the page draws no buttons and serves no action (404)', async () => {
    const state = stateStore.open();
    const server = await start(state, undefined);

    const page = await (await fetch(server.url)).text();
    const answer = await post(server, '/actions/approve-deletes', { scope: 'all' });

    expect(page).not.toContain('<meta name="csrf-token"');
    expect(page).not.toContain('<form method="post"');
    expect(answer.status).toBe(404);
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

/** The page of a daemon on the harness's state and folder: the operator's real actions. */
async function startOn(h: SyncHarness) {
  const local = new FsLocalStore({ root: h.root, settleSeconds: 0, metaCache: h.state.metaFiles });
  const operator = operatorActions({
    state: h.state,
    local,
    webUrl: h.sim.webUrl,
    onRemoteDelete: h.deps.settings.onRemoteDelete,
    now: Date.now,
    locks: h.deps.locks,
  });
  const { actions, synced } = recordingActions(operator);
  const server = await start(h.state, actions, {}, h.deps.settings.onRemoteDelete);
  return { server, synced, operator, token: await tokenOf(server) };
}

const HOUR = 3_600_000;

/** minutes.pdf changed on both sides of a synced document: one open conflict. */
async function minutesConflict() {
  const h = await harness();
  const [company] = await h.owners();
  const doc = h.sim.admin.createDocument({ owner: company!, name: 'Board Minutes' });
  const id = String(doc.id);
  await h.sync();
  const folder = h.documentFolder(id)!;
  h.write(`${folder}/minutes.pdf`, 'our minutes', Date.now() - HOUR);
  h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'their minutes' });
  await h.sync();
  const [conflict] = h.state.conflicts.list(10, { open: true });
  return { h, company: company!, id, folder, conflict };
}
const FOUR_EACH = { companies: 1, trusts: 1, documentsPerEntity: 4, attachmentsPerDocument: 1 };

describe("the page's approve and resolve, as the command line does them", () => {
  it("approves an entity's held deletes: the decision is in the state, its sync is asked for, and the sync trashes them", async () => {
    const h = await harness({
      seed: { ...FOUR_EACH, seed: 5 },
      settings: { maxDeleteCount: 2, maxDeletePercent: 100 },
    });
    expect((await h.sync()).result).toBe('ok');
    const [company, trust] = await h.owners();
    const docs = (await h.remote()).documents;
    const of = (owner: OwnerRef) => docs.filter((d) => d.owner.id === owner.id).map((d) => d.id);
    const gone = [...of(company!).slice(0, 2), ...of(trust!).slice(0, 1)];
    const folders = gone.map((id) => h.documentFolder(id)!);
    for (const id of gone) h.sim.admin.deleteDocument(id);
    expect((await h.sync()).result).toBe('safety-stop');
    expect(h.state.heldDeletes.list()).toHaveLength(3);
    const { server, synced } = await startOn(h);
    const form = await approveForm(server, /^Approve its 2 deletes$/);
    expect(form).toMatchObject({ kind: company!.kind, id: company!.id, count: '2' });

    const approved = await post(server, '/actions/approve-deletes', form);
    const again = await post(server, '/actions/approve-deletes', form);

    expect(approved.status).toBe(200);
    expect(JSON.parse(approved.body).message).toMatch(
      /^Approved 2 held deletes of .+: its sync starts now and carries them out;/,
    );
    expect(again.status).toBe(404);
    expect(JSON.parse(again.body).message).toMatch(/^No delete is waiting for a decision for /);
    const decisions = new Map(h.state.heldDeletes.list().map((r) => [r.documentId, r.decision]));
    expect([...decisions.entries()].sort()).toEqual(
      [
        [gone[0], 'approve'],
        [gone[1], 'approve'],
        [gone[2], null],
      ].sort(),
    );
    expect(synced).toEqual([company]);

    // The company's sync carries the approved deletes out; the trust's stays held.
    expect((await h.sync({ owners: [company!] })).result).toBe('ok');
    expect(h.exists(folders[0]!)).toBe(false);
    expect(h.exists(folders[1]!)).toBe(false);
    expect(h.exists(folders[2]!)).toBe(true);
    const trashed = [...h.trash().keys()];
    for (const folder of folders.slice(0, 2))
      expect(trashed.some((rel) => rel.startsWith(folder))).toBe(true);
    expect(h.state.heldDeletes.list().map((r) => r.documentId)).toEqual([gone[2]]);
  });

  it("approves every entity's held deletes at once, and asks for each entity's sync at once", async () => {
    const h = await harness({
      seed: { ...FOUR_EACH, seed: 6 },
      settings: { maxDeleteCount: 2, maxDeletePercent: 100 },
    });
    expect((await h.sync()).result).toBe('ok');
    const docs = (await h.remote()).documents;
    const gone = [
      ...docs.filter((d) => d.owner.kind === 'company').slice(0, 2),
      ...docs.filter((d) => d.owner.kind === 'trust').slice(0, 2),
    ].map((d) => d.id);
    for (const id of gone) h.remove(h.documentFolder(id)!);
    expect((await h.sync()).result).toBe('safety-stop');
    const { server, synced } = await startOn(h);

    const approved = await post(
      server,
      '/actions/approve-deletes',
      await approveForm(server, /^Approve all 4 held deletes$/),
    );

    expect(approved.status).toBe(200);
    expect(JSON.parse(approved.body).message).toMatch(
      /^Approved 4 held deletes of 2 companies and trusts: each one's sync starts now and carries them out;/,
    );
    expect(h.state.heldDeletes.list().map((r) => r.decision)).toEqual(Array(4).fill('approve'));
    const owners = [...new Set(docs.filter((d) => gone.includes(d.id)).map((d) => d.owner.id))];
    expect(synced.map((o) => o.id).sort()).toEqual(owners.sort());
    expect((await h.sync()).result).toBe('ok');
    const left = (await h.remote()).documents.map((d) => d.id);
    for (const id of gone) expect(left).not.toContain(id);
    expect(h.state.heldDeletes.list()).toEqual([]);
  });

  it('says a removed folder waits its hold time and until when; Approve leaves it to its hold', async () => {
    const h = await harness({
      seed: { ...FOUR_EACH, seed: 8 },
      settings: { maxDeleteCount: 2, maxDeletePercent: 100 },
    });
    expect((await h.sync()).result).toBe('ok');
    const docs = (await h.remote()).documents;
    const companies = docs.filter((d) => d.owner.kind === 'company').map((d) => d.id);
    for (const id of companies.slice(0, 3)) h.remove(h.documentFolder(id)!);
    expect((await h.sync()).result).toBe('safety-stop');
    // Under the daemon the company's fourth folder was removed since: in its hold time.
    const inHold = docs.find((d) => d.id === companies[3])!;
    const until = Date.UTC(2026, 10, 25, 9, 30, 0);
    h.state.heldDeletes.wait(
      [
        {
          owner: { kind: 'company', id: String(inHold.owner.id) },
          documentId: inHold.id,
          side: 'remote',
          folder: h.documentFolder(inHold.id)!,
          documentName: inHold.name,
          reason: 'removed',
          dueAt: until,
        },
      ],
      Date.now(),
    );
    const { server } = await startOn(h);
    const page = await (await fetch(server.url)).text();
    expect(page).toContain(
      'A removed folder: the delete in the service waits until <time datetime="2026-11-25T09:30:00.000Z">2026-11-25 09:30:00 UTC</time>',
    );
    expect(page).toContain('<h3>Held deletes (3)</h3>');

    const approved = await post(
      server,
      '/actions/approve-deletes',
      await approveForm(server, /^Approve its 3 deletes$/),
    );
    expect(approved.status).toBe(200);
    const decisions = new Map(h.state.heldDeletes.list().map((r) => [r.documentId, r.decision]));
    expect(decisions.get(inHold.id)).toBeNull();
    for (const id of companies.slice(0, 3)) expect(decisions.get(id)).toBe('approve');
  });

  it('resolves a conflict keep-mine: our copy takes the name, theirs goes to the trash, the sync is asked for', async () => {
    const { h, company, id, folder, conflict } = await minutesConflict();
    expect(conflict).toBeDefined();
    const { server, synced, token } = await startOn(h);
    const resolve = (conflictId: number, resolution: string) =>
      post(server, '/actions/resolve-conflict', {
        conflict: String(conflictId),
        resolution,
        csrf: token,
      });

    const resolved = await resolve(conflict!.id, 'keep-mine');
    const again = await resolve(conflict!.id, 'keep-theirs');
    const unknown = await resolve(999, 'keep-both');

    expect(resolved.status).toBe(200);
    expect(JSON.parse(resolved.body).message).toMatch(
      new RegExp(
        `^Conflict ${conflict!.id} resolved \\(keep-mine\\): minutes\\.pdf goes to the trash`,
      ),
    );
    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('our minutes');
    expect(
      [...h.tree().keys()].filter(
        (rel) => rel.startsWith(`${folder}/`) && rel.includes('conflict'),
      ),
    ).toEqual([]);
    expect([...h.trash().values()]).toContain(sha256('their minutes'));
    expect(h.state.conflicts.get(conflict!.id)?.resolution).toBe('keep-mine');
    expect(synced).toEqual([company]);
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body).message).toContain('was already resolved (keep-mine)');
    expect(unknown.status).toBe(404);
    // The page's own words: no command to type (issue 27).
    expect(JSON.parse(unknown.body).message).toBe(
      'This conflict is no longer recorded; reload the page.',
    );
    expect(JSON.parse(again.body).message).not.toContain('docsync conflicts');

    await h.sync();
    const names = (await h.remoteDoc(id))!.attachments.map((a) => [a.name, a.sha256]);
    expect(names).toContainEqual(['minutes.pdf', sha256('our minutes')]);
  });

  it('says what failed when the folder refuses a step of a resolution (500, in JSON the page reads), and the conflict can be resolved again', async () => {
    const { h, folder, conflict } = await minutesConflict();
    const disk = { refuses: true };
    const store = new FsLocalStore({
      root: h.root,
      settleSeconds: 0,
      metaCache: h.state.metaFiles,
    });
    // The folder refuses renames, as a share whose permissions changed would.
    const local = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'renameFile' && disk.refuses)
          return () =>
            Promise.reject(
              Object.assign(new Error(`EACCES: permission denied, rename '${folder}'`), {
                code: 'EACCES',
              }),
            );
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const operator = operatorActions({
      state: h.state,
      local,
      webUrl: h.sim.webUrl,
      onRemoteDelete: 'trash',
      now: Date.now,
      locks: h.deps.locks,
    });
    const server = await start(h.state, recordingActions(operator).actions);
    const token = await tokenOf(server);
    const resolve = () =>
      post(
        server,
        '/actions/resolve-conflict',
        { conflict: String(conflict!.id), resolution: 'keep-mine', csrf: token },
        { accept: 'application/json' },
      );

    const failed = await resolve();

    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body)).toEqual({
      ok: false,
      message: expect.stringMatching(/^Carrying it out failed: EACCES: permission denied/),
    });
    expect(h.state.conflicts.get(conflict!.id)?.resolution).toBeNull();
    expect([...h.tree().values()]).toContain(sha256('our minutes'));
    disk.refuses = false;
    const done = await resolve();
    expect(done.status).toBe(200);
    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('our minutes');
  });

  it('approves only what the page showed: deletes held after it was drawn make it 409, and nothing is approved', async () => {
    const h = await harness({
      seed: { ...FOUR_EACH, seed: 7 },
      settings: { maxDeleteCount: 1, maxDeletePercent: 100 },
    });
    expect((await h.sync()).result).toBe('ok');
    const docs = (await h.remote()).documents;
    const ofKind = (kind: string) => docs.filter((d) => d.owner.kind === kind).map((d) => d.id);
    const [c1, c2, c3] = ofKind('company');
    const [t1, t2] = ofKind('trust');
    for (const id of [c1!, c2!, t1!]) h.sim.admin.deleteDocument(id);
    expect((await h.sync()).result).toBe('safety-stop');
    const { server, synced } = await startOn(h);
    const entityForm = await approveForm(server, /^Approve its 2 deletes$/);
    const allForm = await approveForm(server, /^Approve all 3 held deletes$/);

    // A mass event after the page was drawn: more deletes held, one of them the company's.
    for (const id of [c3!, t2!]) h.sim.admin.deleteDocument(id);
    expect((await h.sync()).result).toBe('safety-stop');
    expect(h.state.heldDeletes.list()).toHaveLength(5);

    const entity = await post(server, '/actions/approve-deletes', entityForm);
    const all = await post(server, '/actions/approve-deletes', allForm);

    for (const answer of [entity, all]) {
      expect(answer.status).toBe(409);
      expect(JSON.parse(answer.body).message).toMatch(
        /changed since the page was drawn \(\d then, \d waiting now\); nothing was approved: reload the page/,
      );
    }
    expect(h.state.heldDeletes.decided()).toEqual([]);
    expect(synced).toEqual([]);

    // Drawn again, the page shows the five, and its button approves the five.
    const again = await post(
      server,
      '/actions/approve-deletes',
      await approveForm(server, /^Approve all 5 held deletes$/),
    );
    expect(again.status).toBe(200);
    expect(h.state.heldDeletes.decided()).toHaveLength(5);
  });

  it('with onRemoteDelete "delete", the page and its answer say the folders are deleted for good', async () => {
    const h = await harness({
      seed: { ...FOUR_EACH, seed: 8 },
      settings: { maxDeleteCount: 1, maxDeletePercent: 100, onRemoteDelete: 'delete' },
    });
    expect((await h.sync()).result).toBe('ok');
    const companyDocs = (await h.remote()).documents.filter((d) => d.owner.kind === 'company');
    for (const d of companyDocs.slice(0, 2)) h.sim.admin.deleteDocument(d.id);
    expect((await h.sync()).result).toBe('safety-stop');
    const { server } = await startOn(h);

    const page = await (await fetch(server.url)).text();
    const approved = await post(
      server,
      '/actions/approve-deletes',
      await approveForm(server, /^Approve its 2 deletes$/),
    );

    expect(page).toContain('for good (onRemoteDelete is &quot;delete&quot;): the service deleted');
    expect(page).not.toContain('what they remove is kept in .docsync/trash/');
    expect(JSON.parse(approved.body).message).toContain(
      'the folders are deleted for good, not kept in .docsync/trash/',
    );
  });

  it('resolves a conflict once when two resolutions come at the same time: the other is refused, one version stays', async () => {
    const { h, folder, conflict } = await minutesConflict();
    const { operator } = await startOn(h);

    // As a double click, or the page beside the command line, would send them.
    const answers = await Promise.all([
      operator.resolveConflict({ conflictId: conflict!.id, resolution: 'keep-mine' }),
      operator.resolveConflict({ conflictId: conflict!.id, resolution: 'keep-theirs' }),
    ]);

    expect(answers.map((a) => a.kind)).toEqual(['done', 'refused']);
    expect(answers[1]!.message).toContain('was already resolved (keep-mine)');
    expect(h.read(`${folder}/minutes.pdf`).toString()).toBe('our minutes');
    expect([...h.trash().values()]).toEqual([sha256('their minutes')]);
    expect(h.state.conflicts.get(conflict!.id)?.resolution).toBe('keep-mine');
  });
});
