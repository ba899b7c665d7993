/**
 * `docsync check` as an operator runs it (the command line, in this process on a captured
 * terminal) against the simulator on port 0: every line ok, warn or fail with a hint, exit 1
 * only on a fail, and nothing changed anywhere: no request but GETs (and a token refresh), no
 * database or folder created.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckLine } from '../../src/domain/check-lines.js';
import { ROUTE_NAMES, ROUTES } from '../../src/remote/routes.js';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { advisedCommand, runCli } from '../helpers/run-cli.js';
import { useStateStore } from '../helpers/state-store.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { useWebhookReceivers } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startReceiver = useWebhookReceivers();
const hookState = useStateStore();
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

interface Report {
  readonly ok: boolean;
  readonly lines: CheckLine[];
}

/** A simulated firm, a config for it, and (unless `login: false`) a stored login. */
async function setup(
  options: { sim?: SimulatorOptions; config?: Record<string, unknown>; login?: boolean } = {},
) {
  // Unthrottled: no check here is about the rate.
  const sim = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0, ...options.sim });
  sims.push(sim);
  const dir = tempDir();
  const statePath = path.join(dir, 'state', 'docsync.db');
  const config = writeCliConfig(dir, sim, options.config);
  if (options.login !== false) {
    // What `docsync auth login` leaves behind: a database holding a refresh token.
    const state = StateStore.open(statePath);
    state.tokens.seedRefreshToken(sim.admin.mintRefreshToken());
    state.close();
  }
  sim.admin.resetCounters();
  const check = async (...args: string[]) => {
    const result = await runCli(['check', '--config', config, ...args], { timeoutMs: 30_000 });
    return {
      ...result,
      report: args.includes('--json') ? (JSON.parse(result.stdout) as Report) : null,
    };
  };
  return { sim, dir, statePath, check, config };
}

const line = (report: Report | null, topic: string | RegExp) =>
  report!.lines.find((l) => (typeof topic === 'string' ? l.topic === topic : topic.test(l.topic)));

const routeLine = (report: Report | null, name: string) =>
  report!.lines.find((l) => l.data?.route === name);

describe('docsync check', () => {
  it('calls every route that reads, each with its answer, and only those', async () => {
    const { sim, check } = await setup();

    const { code, report, stderr } = await check('--json');

    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report!.ok).toBe(true);
    for (const name of ROUTE_NAMES.filter((n) => ROUTES[n].method === 'GET')) {
      expect(routeLine(report, name), name).toBeDefined();
    }
    expect(routeLine(report, 'listCompanies')).toMatchObject({
      topic: 'GET /cas/companies',
      result: 'ok',
      message: expect.stringMatching(/^answered 200: 4 companies in \d+ ms$/),
      data: { status: 200, durationMs: expect.any(Number), source: 'public', overridden: false },
    });
    expect(line(report, 'token')).toMatchObject({
      result: 'ok',
      message: expect.stringMatching(/^refreshed: a new access token, valid until /),
    });
    expect(line(report, 'clock')?.result).toBe('ok');
    // Read-only: the service saw GETs and the one token refresh, nothing that writes.
    const calls = Object.keys(sim.admin.counters().api.byRoute);
    expect(
      calls.filter((c) => !c.startsWith('GET ') && !c.startsWith('POST /oauth/token')),
    ).toEqual([]);
    expect(calls.some((c) => c.startsWith('GET /documents/statusTypes 200'))).toBe(true);
  });

  it('shows the link host the service answers with, and whether docsync would fetch from it', async () => {
    const listed = await setup();
    const { code, report } = await listed.check('--json');
    expect(code).toBe(0);
    expect(line(report, 'download link host')).toMatchObject({
      result: 'ok',
      message: expect.stringContaining(`links point at ${listed.sim.linkUrl}: fetched (listed`),
    });

    // The service's links moved to where docsync listens, or service.linkHosts is not set.
    const moved = await setup({ config: { status: { enabled: false, listen: '127.0.0.1:8788' } } });
    moved.sim.admin.setLinks({ linkUrl: 'http://127.0.0.1:8788/' });
    const refused = await moved.check('--json');
    expect(refused.code).toBe(1);
    expect(line(refused.report, 'download link host')).toMatchObject({
      result: 'fail',
      message: expect.stringContaining('http://127.0.0.1:8788 is not one of service.linkHosts'),
      hint: expect.stringContaining('list it in service.linkHosts'),
    });
    const unset = await setup({ config: { service: { linkHosts: undefined } } });
    const plain = await unset.check('--json');
    expect(line(plain.report, 'download link host')).toMatchObject({
      result: 'fail',
      message: expect.stringContaining(`${unset.sim.linkUrl} is plain http`),
    });
    // Judged, not fetched: the link host saw no request.
    expect(unset.sim.admin.counters().links.requests).toBe(0);
  });

  it('never creates a missing state database or store folder, and says what to do (exit 1)', async () => {
    const { dir, statePath, check, config } = await setup({ login: false });
    const login = advisedCommand(config, 'auth login');

    const { code, stdout } = await check();

    expect(code).toBe(1);
    // Before the first run that is no failure; having no login to check anything with is.
    expect(stdout).toMatch(/ok {4}state database: .*docsync\.db does not exist yet; the first run/);
    expect(stdout).toContain(`does not exist yet; the first run (or \`${login}\`) makes it`);
    expect(stdout).toMatch(/FAIL {2}token: no login: there is no state database to hold one/);
    expect(stdout).toContain(`→ Run \`${login}\``);
    expect(stdout).toMatch(
      /ok {4}store folder: store\.root .* does not exist yet; the first run makes it/,
    );
    expect(stdout).toMatch(
      /\d+ ok, \d+ warnings?, 1 failed: docsync cannot work as configured \(exit 1\)\n$/,
    );
    expect(existsSync(statePath)).toBe(false);
    expect(existsSync(path.dirname(statePath))).toBe(false);
    expect(existsSync(path.join(dir, 'documents'))).toBe(false);
  });

  it('leaves an older state database as it is: no migration behind a running old daemon', async () => {
    const { statePath, check } = await setup();
    const old = StateStore.open(statePath);
    old.db.pragma('user_version = 1');
    old.close();

    const { code, report } = await check('--json');

    expect(code).toBe(0);
    expect(line(report, 'state database')).toMatchObject({
      result: 'warn',
      message: expect.stringContaining('has schema version 1; this docsync upgrades it to'),
    });
    expect(report!.lines.some((l) => l.topic === 'token')).toBe(false);
    const db = new BetterSqlite3(statePath, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });

  it('gives the advice a command stopped by the same failure gives', async () => {
    const { dir, check } = await setup({
      sim: { faults: { routes: { '/documents/statusTypes': 403 } } },
    });

    const { report } = await check('--json');
    const api = await runCli(
      ['api', 'status-types', 'list', '--config', path.join(dir, 'docsync.json')],
      { timeoutMs: 30_000 },
    );

    const hint = routeLine(report, 'statusTypes')!.hint!;
    // For the configuration checked, as the command runs here.
    const login = advisedCommand(path.join(dir, 'docsync.json'), 'auth login');
    expect(hint).toBe(
      `The grant does not cover this: check service.scope against what the application is approved for, or authorise again (\`${login}\`) as a user who may do it.`,
    );
    expect(api.code).toBe(1);
    expect(api.stderr).toMatch(
      /^docsync: The service refused docsync access \(GET \/cas\/documents\/statusTypes answered 403 [^\n]*\)\. /,
    );
    expect(api.stderr.trimEnd().endsWith(hint)).toBe(true);
  });

  it('fails on a route the sync needs, warns on one it goes on without or only `docsync api` uses', async () => {
    const { check } = await setup({
      sim: {
        faults: { routes: { '/trusts': 503, '/documents/statusTypes': 503, '/contacts': 500 } },
      },
    });

    const { code, report } = await check('--json');

    expect(code).toBe(1);
    expect(routeLine(report, 'listTrusts')).toMatchObject({
      result: 'fail',
      message: expect.stringMatching(
        /^answered 503 injected_fault: Injected failure of \/trusts in \d+ ms$/,
      ),
      hint: expect.stringContaining('The service is failing'),
      data: { status: 503 },
    });
    // Without the status types the sync goes on: statuses keep their names, pushes wait.
    expect(routeLine(report, 'statusTypes')).toMatchObject({
      result: 'warn',
      message: expect.stringMatching(
        /^answered 503 injected_fault: Injected failure of \/documents\/statusTypes in \d+ ms; the sync goes on without it: statuses are kept by the names the documents carry, and status pushes wait until the status types can be read$/,
      ),
      hint: expect.stringContaining('The service is failing'),
    });
    expect(routeLine(report, 'listContacts')).toMatchObject({
      result: 'warn',
      message: expect.stringContaining('(only the `api` command uses this route)'),
    });
    // The rest was still tried.
    expect(routeLine(report, 'listCompanies')?.result).toBe('ok');
  });

  it('names the service.routes key when a corrected path is not on the service', async () => {
    const { code, report } = await (
      await setup({
        config: {
          // One path that is nowhere, one that is another route's: its answer holds no list.
          service: { routes: { statusTypes: '/cas/statusTypes', listTrusts: '/contacts/568901' } },
        },
      })
    ).check('--json');

    expect(code).toBe(1);
    expect(line(report, 'configuration')?.message).toContain(
      'corrected paths: statusTypes, listTrusts',
    );
    expect(routeLine(report, 'listTrusts')).toMatchObject({
      result: 'fail',
      message: expect.stringMatching(
        /^answered 200, but its response does not match the contract: expected the list under `trusts` or as the answer itself, got no list: an object with `id`, `contactType`, `name`, `email` in \d+ ms$/,
      ),
      // JSON from the API in another shape: the base URL is right, the shape is what differs.
      hint: expect.stringContaining('not in the shape docsync reads'),
    });
    expect(routeLine(report, 'statusTypes')).toMatchObject({
      topic: 'GET /cas/statusTypes',
      // The sync goes on without the status types (engine/catalogue.ts): a warning.
      result: 'warn',
      message: expect.stringMatching(/^answered 404 /),
      hint: 'The path set in service.routes.statusTypes is not on the service: correct it, or remove it to use the built-in one.',
      data: { overridden: true, source: 'ours', status: 404 },
    });
  });

  it('fails the clock when signed webhooks would be refused as stale, warns when they are off', async () => {
    const tenMinutes = 10 * 60_000;
    const signed = await setup({
      sim: { clockOffsetMs: tenMinutes },
      config: {
        webhook: { listen: '127.0.0.1:0', clientCode: 'FIRM', secret: 'hook-secret' },
      },
    });
    const { code, report } = await signed.check('--json');
    expect(code).toBe(1);
    const clock = line(report, 'clock')!;
    expect(clock).toMatchObject({
      result: 'fail',
      message: expect.stringMatching(
        /^the service's clock is \d+(\.\d)? s ahead of this machine's: every signed webhook would be refused as stale/,
      ),
    });
    // The Date header has whole seconds: the skew is known to about a second.
    expect(Math.abs((clock.data!.skewMs as number) - tenMinutes)).toBeLessThan(2000);

    const unsigned = await setup({ sim: { clockOffsetMs: -tenMinutes } });
    const off = await unsigned.check('--json');
    expect(off.code).toBe(0);
    expect(line(off.report, 'clock')).toMatchObject({
      result: 'warn',
      message: expect.stringMatching(
        /behind this machine's; docsync corrects change times for it$/,
      ),
    });
  });

  it('stops at a refused login and names what to do, without trying the routes', async () => {
    const { statePath, check, config } = await setup({ login: false });
    const state = StateStore.open(statePath);
    state.tokens.seedRefreshToken('revoked-or-invented');
    state.close();

    const { code, report } = await check('--json');

    expect(code).toBe(1);
    expect(line(report, 'token')).toMatchObject({
      result: 'fail',
      message: expect.stringContaining('400 invalid_grant on refresh_token'),
      hint: expect.stringContaining(`\`${advisedCommand(config, 'auth login')}\``),
    });
    expect(report!.lines.some((l) => l.data?.route !== undefined)).toBe(false);
  });

  it('tries the webhook URL: the running receiver, or a URL that leads nowhere', async () => {
    const { receiver } = await startReceiver(hookState.open());
    const port = Number(new URL(receiver.url).port);
    const webhook = { listen: `127.0.0.1:${port}`, clientCode: 'DOCSYNC', secret: 'hook-s3cret' };
    const held = await setup({ config: { webhook } });
    const found = await held.check('--json');
    expect(line(found.report, 'webhook URL')).toMatchObject({
      result: 'ok',
      message: `http://127.0.0.1:${port}/webhooks/document-change reaches the running receiver (a GET is answered 405, as it should be)`,
    });

    const closed = await freePort();
    const nowhere = await setup({
      config: {
        webhook: {
          ...webhook,
          listen: '127.0.0.1:0',
          publicUrl: `http://127.0.0.1:${closed}/hook`,
        },
      },
    });
    const lost = await nowhere.check('--json');
    expect(lost.code).toBe(1);
    expect(line(lost.report, 'webhook URL')).toMatchObject({
      result: 'fail',
      message: expect.stringContaining(
        `http://127.0.0.1:${closed}/hook cannot be reached from this machine`,
      ),
      hint: expect.stringContaining('proxy forwards this URL to webhook.listen'),
    });
  });
});

/** A port nothing listens on (taken, then let go). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
