/**
 * Issue 26, case by case: what the real service's public pages show where api.md says otherwise,
 * met by docsync as an operator meets it (its commands and the daemon, run in this process on a
 * captured terminal) against the simulator speaking the public pages' reading (`--profile
 * public-docs`), unthrottled: no case is about the rate. Each `it` is one numbered case of the
 * issue.
 */

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDaemon } from '../../src/commands/run-command.js';
import type { CheckLine } from '../../src/domain/check-lines.js';
import { REAL_CLOCK } from '../../src/domain/clock.js';
import { createRemote } from '../../src/remote/create-client.js';
import {
  type Simulator,
  type SimulatorOptions,
  signWebhook,
  startSimulator,
} from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually } from '../helpers/daemon-process.js';
import { FAST_RETRY } from '../helpers/remote.js';
import { capturedTerminal, runCli } from '../helpers/run-cli.js';
import { startTestStatusServer } from '../helpers/status-server.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sims: Simulator[] = [];
const closing: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

/** The demo firm on a simulator of the public pages' reading, and docsync configured for it. */
async function publicFirm(config: Record<string, unknown> = {}, sim: SimulatorOptions = {}) {
  const service = await startSimulator({
    seed: 'demo',
    profile: 'public-docs',
    rateLimitPerSecond: 0,
    ...sim,
  });
  sims.push(service);
  const dir = tempDir();
  const file = writeCliConfig(dir, service, config);
  const root = path.join(dir, 'documents');
  const statePath = path.join(dir, 'state', 'docsync.db');
  login(statePath, service.admin.mintRefreshToken());
  const env = { DOCSYNC_REFRESH_TOKEN: service.admin.mintRefreshToken() };
  const cli = (...args: string[]) =>
    runCli([...args, '--config', file], { env, timeoutMs: 60_000 });
  const status = async () =>
    JSON.parse((await cli('status', '--json')).stdout) as {
      recordsInError?: { kind: string; id: string | null; level: string; reason: string }[];
    };
  const check = async (...args: string[]) => {
    const result = await cli('check', '--json', ...args);
    return { ...result, lines: (JSON.parse(result.stdout) as { lines: CheckLine[] }).lines };
  };
  const folders = (top: 'Companies' | 'Trusts') => readdirSync(path.join(root, top));
  /** Document folders (named `… [id]`) under every entity folder of `top`. */
  const documentIds = (top: 'Companies' | 'Trusts') =>
    folders(top).flatMap((entity) =>
      readdirSync(path.join(root, top, entity)).flatMap((d) => /\[(\d+)\]$/.exec(d)?.[1] ?? []),
    );
  return {
    sim: service,
    dir,
    file,
    root,
    statePath,
    env,
    cli,
    status,
    check,
    folders,
    documentIds,
  };
}

const sorted = (ids: Iterable<string | number>) => [...ids].map(String).sort();

/** Trusts sent with their `name` too: a case that is not about trust names stands alone. */
async function nameTrusts(sim: Simulator): Promise<void> {
  for (const trust of (await sim.admin.dump()).trusts)
    sim.admin.patchRecord('trust', trust.id, { name: trust.name });
}

/** What `docsync auth login` leaves behind: a state database holding a refresh token. */
function login(statePath: string, refreshToken: string): void {
  const state = StateStore.open(statePath);
  state.tokens.seedRefreshToken(refreshToken);
  state.close();
}

describe('first contact with the real service (issue 26)', () => {
  it('1. names a trust without `name` after its trustNameId contact, else "Trust <id>" with a warning; the companies sync too', async () => {
    const f = await publicFirm();
    const dump = await f.sim.admin.dump();
    const [named, unnamed] = dump.trusts;
    f.sim.admin.patchRecord('trust', unnamed!.id, { trustNameId: null });

    const run = await f.cli('run', '--once');

    expect(run.code).toBe(0);
    expect(f.folders('Trusts').some((t) => t.startsWith(named!.name))).toBe(true);
    expect(f.folders('Trusts').some((t) => t.startsWith(`Trust ${unnamed!.id}`))).toBe(true);
    expect(f.folders('Companies')).toHaveLength(dump.companies.length);
    expect((await f.status()).recordsInError).toEqual([
      expect.objectContaining({
        kind: 'trust',
        id: String(unnamed!.id),
        level: 'warning',
        reason: expect.stringContaining('neither a `name` nor a `trustNameId`'),
      }),
    ]);
  });

  it('2. finds the /cas prefix of trust documents on first contact, keeps it, says it once, and takes a path per owner kind', async () => {
    const f = await publicFirm({ log: { level: 'info' } });
    await nameTrusts(f.sim);
    const dump = await f.sim.admin.dump();
    const trustDocs = dump.documents.filter((d) => d.owner.kind === 'trust').map((d) => d.id);

    const first = await f.cli('run', '--once');
    const again = await f.cli('run', '--once');

    expect(sorted(f.documentIds('Trusts'))).toEqual(sorted(trustDocs));
    expect(first.code).toBe(0);
    const said = (out: string) => out.split('the documents of trusts are under /cas').length - 1;
    expect(said(first.stdout + first.stderr)).toBe(1);
    expect(said(again.stdout + again.stderr)).toBe(0);
    const state = StateStore.open(f.statePath, { existing: true });
    expect(state.settings.get('documentPrefix.trust')).toBe('/cas');
    expect(state.settings.get('documentPrefix.company')).toBe('');
    state.close();

    // A path set for one owner kind only; a wrong one is named by its own key in check.
    const perKind = await publicFirm({
      service: { routes: { listDocuments: { trust: '/trust-documents/{trustId}' } } },
    });
    const { code, lines } = await perKind.check();
    expect(code).toBe(1);
    const lists = lines.filter((l) => l.data?.route === 'listDocuments');
    expect(lists.map((l) => [l.data?.kind, l.result])).toEqual([
      ['company', 'ok'],
      ['trust', 'fail'],
    ]);
    expect(lists[1]!.topic).toBe('GET /trust-documents/{trustId}');
    expect(lists[1]!.hint).toContain('service.routes.listDocuments.trust');
  });

  it('2. never guesses a prefix on a 404 to a write', async () => {
    const f = await publicFirm();
    const state = StateStore.open(path.join(f.dir, 'fresh.db'));
    closing.push(() => state.close());
    state.tokens.seedRefreshToken(f.sim.admin.mintRefreshToken());
    const remote = createRemote({
      time: REAL_CLOCK,
      // The simulator's link host is plain http on loopback: allowed only when listed.
      links: { hosts: [f.sim.linkUrl] },
      baseUrl: f.sim.apiUrl,
      clientId: f.sim.clientId,
      clientSecret: f.sim.clientSecret,
      scope: 'cas',
      tokenStore: state.tokens,
      prefixStore: state.settings,
      requestsPerSecond: Number.POSITIVE_INFINITY,
      concurrency: 2,
      retry: FAST_RETRY,
    });
    const trust = { kind: 'trust' as const, id: String((await f.sim.admin.dump()).trusts[0]!.id) };
    f.sim.admin.resetCounters();

    const error: unknown = await remote.client
      .createDocument(trust, { name: 'Not here', documentDate: '2026-01-01' })
      .catch((e: unknown) => e);

    expect((error as Error).message).toMatch(/^POST \/trusts\/\{trustId\}\/documents answered 404/);
    const posts = Object.entries(f.sim.admin.counters().api.byRoute).filter(
      ([r]) => r.startsWith('POST ') && !r.startsWith('POST /oauth/'),
    );
    // One POST, to a path the service does not have (so no route template): never a second.
    expect(posts).toEqual([['POST (unknown) 404', 1]]);
    expect(state.settings.get('documentPrefix.trust')).toBeNull();
  });

  it('3. takes a document’s change time from its list item when its details have none', async () => {
    const f = await publicFirm();
    await nameTrusts(f.sim);
    const dump = await f.sim.admin.dump();
    const companyDocs = dump.documents.filter((d) => d.owner.kind === 'company');

    const run = await f.cli('run', '--once');

    expect(sorted(f.documentIds('Companies'))).toEqual(sorted(companyDocs.map((d) => d.id)));
    expect(run.code).toBe(0);
    // The change time kept is the list's (microseconds), so the next run reads no details.
    f.sim.admin.resetCounters();
    expect((await f.cli('run', '--once')).code).toBe(0);
    const details = Object.keys(f.sim.admin.counters().api.byRoute).filter((r) =>
      /^GET \/companies\/\{ownerId\}\/documents\/\{documentId\} /.test(r),
    );
    expect(details).toEqual([]);
  });

  it('4. acts on a webhook naming a company without dashes, signed with a lower-case client code and a date in microseconds', async () => {
    // api.md's reading for the sync; the webhook comes as the public page shows one.
    const service = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0 });
    sims.push(service);
    const dir = tempDir();
    const config = writeCliConfig(dir, service, {
      log: { level: 'info' },
      schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
      webhook: { enabled: true, listen: '127.0.0.1:0', clientCode: 'FIRM1', secret: 'hook-secret' },
    });
    // The daemon as `docsync run` assembles it, in this process: its log is the terminal's.
    const { terminal, stdout } = capturedTerminal({
      env: { DOCSYNC_REFRESH_TOKEN: service.admin.mintRefreshToken() },
    });
    const { daemon } = createDaemon(terminal, { config });
    closing.push(() => daemon.close());
    await daemon.start();
    const hookUrl = () =>
      /"url":"([^"]+)","msg":"webhook receiver listening"/.exec(stdout.text())?.[1];
    await eventually(() => hookUrl() !== undefined);
    const root = path.join(dir, 'documents');
    const doc = (await service.admin.dump()).documents.find((d) => d.owner.kind === 'company')!;
    const folder = () =>
      readdirSync(path.join(root, 'Companies'))
        .flatMap((c) =>
          readdirSync(path.join(root, 'Companies', c))
            .filter((d) => d.endsWith(`[${doc.id}]`))
            .map((d) => path.join(root, 'Companies', c, d)),
        )
        .at(0);
    await eventually(() => {
      try {
        return folder() !== undefined;
      } catch {
        return false;
      }
    });
    service.admin.resetCounters();
    /** A webhook about `doc` as the public page writes one: its company's id without dashes. */
    const post = (eventId: string, clientCode: string, date: string) => {
      const body = JSON.stringify({
        entityId: String(doc.owner.id).replaceAll('-', '').toLowerCase(),
        eventId,
        eventType: 'documentChange',
        eventSubType: 'newAttachment',
        firmId: 'firm-3001',
        tenants: [{ tenantId: String(doc.id), tenantType: 'documentId' }],
        userId: 'user-1',
      });
      const signature = signWebhook('hook-secret', date, hookUrl()!, body);
      return fetch(hookUrl()!, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `${clientCode} ${date} ${signature}`,
        },
        body,
      });
    };

    // The id alone in the public form, signed as api.md says.
    service.admin.addAttachment(doc.id, { name: 'By webhook.pdf', bytes: '%PDF-1.4 hook' });
    expect((await post('evt-public-1', 'FIRM1', new Date().toISOString())).status).toBe(200);
    await eventually(() => readdirSync(folder()!).includes('By webhook.pdf'));
    // Then the signature too: the client code in lower case, the date in microseconds.
    service.admin.addAttachment(doc.id, { name: 'Signed so.pdf', bytes: '%PDF-1.4 signed' });
    const micros = new Date().toISOString().replace(/Z$/, '417Z');
    expect((await post('evt-public-2', 'firm1', micros)).status).toBe(200);
    await eventually(() => readdirSync(folder()!).includes('Signed so.pdf'));
    // The entity was known in its other spelling: the firm's lists were not read again.
    const lists = Object.keys(service.admin.counters().api.byRoute).filter((r) =>
      /^GET \/(companies|trusts) /.test(r),
    );
    expect(lists).toEqual([]);
  });

  it('5. reads the service’s code and message from an OAuth-style error body', async () => {
    const f = await publicFirm();
    const dump = await f.sim.admin.dump();
    const doc = dump.documents.find((d) => d.owner.kind === 'trust')!;

    const result = await f.cli(
      'api',
      'documents',
      'assign-status',
      'trust',
      String(doc.owner.id),
      String(doc.id),
      '999',
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(422 validation_failed): Unknown status type 999');
  });

  it('6. takes scopes as a list and compares the granted set with the asked one', async () => {
    const service = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0 });
    sims.push(service);
    const dir = tempDir();
    const listed = writeCliConfig(dir, service, { service: { scope: ['cas', 'audit'] } });
    login(
      path.join(dir, 'state', 'docsync.db'),
      service.admin.mintRefreshToken(undefined, 'audit cas'),
    );
    const env = {};
    const check = async (file: string) => {
      const result = await runCli(['check', '--json', '--config', file], {
        env,
        timeoutMs: 60_000,
      });
      return (JSON.parse(result.stdout) as { lines: CheckLine[] }).lines;
    };

    const scope = (await check(listed)).find((l) => l.topic === 'token scope');

    expect(scope).toMatchObject({ result: 'ok', data: { asked: ['cas', 'audit'] } });
    // The same two as OAuth writes them, in another order: the same set, no warning.
    const other = tempDir();
    const spaced = writeCliConfig(other, service, { service: { scope: 'audit  cas' } });
    login(
      path.join(other, 'state', 'docsync.db'),
      service.admin.mintRefreshToken(undefined, 'audit cas'),
    );
    expect((await check(spaced)).find((l) => l.topic === 'token scope')?.result).toBe('ok');
  });

  it('7. reports a company the service sends broken, skips it, syncs the rest, and exits 3', async () => {
    // api.md's reading, so nothing but the broken record differs from what docsync expects.
    const f = await publicFirm({ log: { level: 'info' } }, { profile: 'api' });
    const dump = await f.sim.admin.dump();
    const [broken, ...fine] = dump.companies;
    f.sim.admin.patchRecord('company', broken!.id, { name: 42 });

    const run = await f.cli('run', '--once');

    expect(run.code).toBe(3);
    expect(f.folders('Companies')).toHaveLength(fine.length);
    expect(f.folders('Trusts')).toHaveLength(dump.trusts.length);
    const why = /company .*: .*name: expected a string, got 42/;
    expect(run.stdout + run.stderr).toMatch(new RegExp(`service record in error: ${why.source}`));
    const records = (await f.status()).recordsInError;
    expect(records).toEqual([
      expect.objectContaining({
        kind: 'company',
        id: broken!.id,
        level: 'error',
        reason: expect.stringMatching(why),
      }),
    ]);
    const state = StateStore.open(f.statePath, { existing: true });
    const server = await startTestStatusServer(state);
    const page = await (await fetch(server.url)).text();
    await server.close();
    state.close();
    expect(page).toContain('Service records in error (1)');
    expect(page).toContain('got 42');

    // Sent whole again: it syncs, and the report is gone.
    f.sim.admin.patchRecord('company', broken!.id, null);
    expect((await f.cli('run', '--once')).code).toBe(0);
    expect(f.folders('Companies')).toHaveLength(dump.companies.length);
    expect((await f.status()).recordsInError).toEqual([]);
  });

  it('8. check says "not tried" apart, probes the document routes of both owner kinds, and sends writes to check --write', async () => {
    const f = await publicFirm({}, { profile: 'api' });

    const { code, lines } = await f.check();

    expect(code).toBe(0);
    const byLabel = lines.find((l) => l.data?.route === 'companiesByLabel');
    expect(byLabel?.result).toBe('untried');
    for (const route of ['listDocuments', 'documentDetails', 'attachmentLink']) {
      const kinds = lines
        .filter((l) => l.data?.route === route)
        .map((l) => [l.data?.kind, l.result]);
      expect(kinds, route).toEqual([
        ['company', 'ok'],
        ['trust', 'ok'],
      ]);
    }
    const writes = lines.filter((l) => /^routes that change/.test(l.topic));
    expect(writes.map((l) => l.result)).toEqual(['untried', 'untried']);
    for (const line of writes) {
      expect(line.hint).toMatch(/ check --write <company or trust>`/);
      expect(line.hint).not.toContain('run --once');
    }
  });

  it('9. says what the service keeps as a new document’s link while status.publicUrl is unset', async () => {
    const webhook = {
      enabled: true,
      listen: '127.0.0.1:0',
      clientCode: 'FIRM1',
      secret: 'hook-secret',
      resourceUrlTemplate: 'https://files.example/{path}',
    };
    const without = await publicFirm({ webhook });
    const links = (await without.check()).lines.find((l) => l.topic === 'document links');
    expect(links).toMatchObject({
      result: 'warn',
      message: expect.stringContaining('the service keeps that link, not the folder'),
      hint: expect.stringContaining('Set status.publicUrl'),
    });

    const stable = await publicFirm({
      webhook,
      status: { enabled: true, listen: '127.0.0.1:0', publicUrl: 'https://docsync.example' },
    });
    const line = (await stable.check()).lines.find((l) => l.topic === 'document links');
    expect(line).toMatchObject({
      result: 'ok',
      message: expect.stringContaining('https://docsync.example/documents/{documentId}'),
    });
  });
});
