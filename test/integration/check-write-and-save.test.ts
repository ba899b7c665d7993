/**
 * `docsync check --write ENTITY` and `docsync check --save FILE` as an operator runs them (the
 * command line, in this process on a captured terminal) against the simulator, in both of its
 * readings of the service: every writing route proven step by step, the test document's copy
 * kept in the trash and nothing left behind in the service; and a transcript that no secret
 * reaches.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckLine } from '../../src/domain/check-lines.js';
import { type SimProfile, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

const HOOK_SECRET = 'webhook-secret-never-written';

/** The demo firm synced once (so its folders and the trash are there), and a way to run check. */
async function syncedFirm(profile: SimProfile, config: Record<string, unknown> = {}) {
  // Unthrottled: no case here is about the rate, and the first sync of the firm at the service's
  // pace takes seconds of each test.
  const sim = await startSimulator({ seed: 'demo', profile, rateLimitPerSecond: 0 });
  sims.push(sim);
  const dir = tempDir();
  const file = writeCliConfig(dir, sim, config);
  const statePath = path.join(dir, 'state', 'docsync.db');
  const refreshToken = sim.admin.mintRefreshToken();
  const env = { DOCSYNC_REFRESH_TOKEN: refreshToken };
  const cli = (...args: string[]) =>
    runCli([...args, '--config', file], { env, timeoutMs: 60_000 });
  /** With a refresh token given anew, as an operator pasting one would: the check refreshes. */
  const cliWith = (token: string, ...args: string[]) =>
    runCli([...args, '--config', file], {
      env: { DOCSYNC_REFRESH_TOKEN: token },
      timeoutMs: 60_000,
    });
  expect((await cli('run', '--once')).code).toBe(0);
  const check = async (...args: string[]) => {
    const result = await cli('check', '--json', ...args);
    return { ...result, lines: (JSON.parse(result.stdout) as { lines: CheckLine[] }).lines };
  };
  return {
    sim,
    dir,
    statePath,
    refreshToken,
    cli,
    cliWith,
    check,
    root: path.join(dir, 'documents'),
  };
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, rel = ''): string[] {
  if (!existsSync(path.join(dir, rel))) return [];
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, path.join(rel, e.name)) : [path.join(rel, e.name)],
  );
}

describe.each(['api', 'public-docs'] as const)('docsync check --write (%s)', (profile) => {
  it('proves every route that writes, step by step, and leaves the test document only in the trash', async () => {
    const f = await syncedFirm(profile);
    const dump = await f.sim.admin.dump();
    const trust = dump.trusts[0]!;
    f.sim.admin.resetCounters();

    const { code, lines } = await f.check('--write', String(trust.id), '--yes');

    expect(code).toBe(0);
    const steps = lines.slice(1).map((l) => [l.data?.route, l.result, l.data?.status]);
    expect(steps).toEqual([
      ['listDocuments', 'ok', 200],
      ['createDocument', 'ok', 201],
      ['uploadAttachment', 'ok', 201],
      ['attachmentLink', 'ok', 200],
      ['assignStatus', 'ok', 201],
      ['documentDetails', 'ok', 200],
      ['deleteAttachment', 'ok', 204],
      ['deleteDocument', 'ok', 204],
      ['documentDetails', 'ok', 404],
    ]);
    // Each line names the route as it was called for a trust, and what it answered.
    const prefix = profile === 'public-docs' ? '/cas' : '';
    expect(lines[2]).toMatchObject({
      topic: `POST ${prefix}/trusts/{trustId}/documents`,
      message: expect.stringMatching(/^answered 201: test document \d+ "docsync check .*" created/),
    });
    expect(lines[4]!.message).toContain('the same bytes as uploaded');
    const created = /test document (\d+)/.exec(lines[2]!.message)![1]!;
    // Gone from the service; its copy (the file, then the document) is in the trash.
    expect((await f.sim.admin.dump()).documents.some((d) => d.id === created)).toBe(false);
    const trash = filesUnder(path.join(f.root, '.docsync', 'trash'));
    expect(
      trash
        .filter((p) => p.includes(`docsync check ${created}`))
        .map((p) => path.basename(p))
        .sort(),
    ).toEqual([
      '.docsync-service-copy.json',
      '.docsync-service-copy.json',
      '.document.json',
      'docsync-check.bin',
    ]);
    const writes = Object.entries(f.sim.admin.counters().api.byRoute)
      .filter(([r]) => /^(POST|DELETE) /.test(r) && !r.startsWith('POST /oauth'))
      .map(([r, n]) => `${r} x${n}`)
      .sort();
    expect(writes).toEqual([
      'DELETE /trusts/{ownerId}/documents/{documentId} 204 x1',
      'DELETE /trusts/{ownerId}/documents/{documentId}/attachments/{attachmentId} 204 x1',
      'POST /trusts/{ownerId}/documents 201 x1',
      'POST /trusts/{ownerId}/documents/{documentId}/attachments 201 x1',
      'POST /trusts/{ownerId}/documents/{documentId}/statuses 201 x1',
    ]);
  });
});

describe('docsync check --write refuses', () => {
  it('to go on unasked, and production unless told so, and writes nothing then', async () => {
    const f = await syncedFirm('api');
    f.sim.admin.resetCounters();

    const unasked = await f.check('--write', 'Harbourside Unit Trust');

    expect(unasked.code).toBe(1);
    expect(unasked.lines.at(-1)).toMatchObject({
      result: 'fail',
      message: expect.stringContaining('add --yes'),
    });
    const ambiguous = await f.check('--write', 'Harbourside', '--yes');
    expect(ambiguous.lines.at(-1)?.message).toMatch(/"Harbourside" names 2: company .*; trust .*/);

    const prod = writeCliConfig(tempDir(), f.sim, { service: { environment: 'production' } });
    const refused = await runCli([
      'check',
      '--json',
      '--write',
      'Harbourside Unit Trust',
      '--yes',
      '--config',
      prod,
    ]);
    expect(refused.code).toBe(1);
    const line = (JSON.parse(refused.stdout) as { lines: CheckLine[] }).lines.at(-1)!;
    expect(line.message).toMatch(/^refused: .* is production/);
    expect(line.hint).toContain('--allow-production');
    const writes = Object.keys(f.sim.admin.counters().api.byRoute).filter(
      (r) => /^(POST|DELETE) /.test(r) && !r.startsWith('POST /oauth'),
    );
    expect(writes).toEqual([]);
  });
});

describe('docsync check --save', () => {
  it('writes every request and answer of the check, and no secret can reach the file', async () => {
    const f = await syncedFirm('public-docs', {
      webhook: {
        enabled: true,
        listen: '127.0.0.1:0',
        clientCode: 'FIRM1',
        secret: HOOK_SECRET,
      },
    });
    const full = path.join(f.dir, 'check.txt');
    const write = path.join(f.dir, 'check-write.txt');

    const given = f.sim.admin.mintRefreshToken();
    const checked = await f.cliWith(given, 'check', '--save', full);
    const written = await f.cliWith(
      given,
      'check',
      '--write',
      'Harbourside Unit Trust',
      '--yes',
      '--save',
      write,
    );

    expect(checked.code).toBe(0);
    expect(written.code).toBe(0);
    const text = readFileSync(full, 'utf8') + readFileSync(write, 'utf8');
    // Every request is there, with what it answered.
    expect(text).toMatch(
      /^> GET http:\/\/127\.0\.0\.1:\d+\/cas\/companies\?details=true&offset=0&limit=500/m,
    );
    expect(text).toMatch(
      /^> POST http:\/\/127\.0\.0\.1:\d+\/oauth\/token\?grant_type=refresh_token&refresh_token=\[removed\]/m,
    );
    expect(text).toMatch(/^> POST http:\/\/127\.0\.0\.1:\d+\/cas\/trusts\/\d+\/documents /m);
    expect(text).toMatch(/^< 201 in \d+ ms$/m);
    expect(text).toContain('What the check concluded:');
    expect(statSync(full).mode & 0o777).toBe(0o600);
    // No secret: not the client's, not the webhook's, no token docsync held or was given, no
    // OAuth code, no download link, in any form.
    const state = StateStore.open(f.statePath, { existing: true });
    const tokens = state.tokens.read()!;
    state.close();
    const secrets = [
      f.sim.clientSecret,
      Buffer.from(`${f.sim.clientId}:${f.sim.clientSecret}`).toString('base64'),
      HOOK_SECRET,
      f.refreshToken,
      given,
      tokens.accessToken!,
      tokens.refreshToken!,
    ];
    for (const secret of secrets) expect(text, secret).not.toContain(secret);
    expect(text).not.toMatch(/code=(?!\[removed\])/);
    expect(text).not.toContain(`${f.sim.linkUrl}/files/`);
    expect(text).toMatch(/authorization: Bearer \[removed\]/);
  });
});

describe('docsync check --save FILE.json', () => {
  it('writes JSON to a name that says JSON: the exchanges and what the check concluded, no secret', async () => {
    const f = await syncedFirm('api');
    const file = path.join(f.dir, 'check.json');

    const given = f.sim.admin.mintRefreshToken();
    const checked = await f.cliWith(given, 'check', '--save', file);

    expect(checked.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    const saved = JSON.parse(text) as {
      exchanges: { request: { method: string; url: string }; response: { status: number } }[];
      conclusion: { ok: boolean; lines: CheckLine[] };
    };
    expect(saved.conclusion.ok).toBe(true);
    expect(saved.conclusion.lines.find((l) => l.topic === 'token')?.result).toBe('ok');
    const companies = saved.exchanges.find((e) => /\/cas\/companies\?/.test(e.request.url));
    expect(companies).toMatchObject({ request: { method: 'GET' }, response: { status: 200 } });
    expect(saved.exchanges.some((e) => /refresh_token=\[removed\]/.test(e.request.url))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const secret of [f.sim.clientSecret, f.refreshToken, given])
      expect(text, secret).not.toContain(secret);
  });
});
