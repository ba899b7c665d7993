import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OUT_SLACK_MS, spacingMs } from '../../src/domain/request-governor.js';
import type { OwnerRef } from '../../src/domain/types.js';
import { namedUploadSource } from '../../src/local/upload-file.js';
import { ApiError, AuthRequiredError } from '../../src/remote/api-error.js';
import type { DocumentListEntry } from '../../src/remote/service-client.js';
import type { ResponseInfo } from '../../src/remote/service-http.js';
import { collect, useRemote } from '../helpers/remote.js';
import { useTempDir } from '../helpers/temp-dir.js';

const start = useRemote();
const tempDir = useTempDir();

async function firstDocument(sim: Awaited<ReturnType<typeof start>>['sim']) {
  const doc = (await sim.admin.dump()).documents.find((d) => d.attachments.length > 0)!;
  return { doc, owner: doc.owner as OwnerRef };
}

describe('API client: tokens', () => {
  it('refreshes an expired access token mid-run and stores the rotated refresh token', async () => {
    const { remote, tokens, clientWith } = await start({ seed: 'demo', accessTokenTtlSeconds: 1 });
    const seeded = tokens.read()!.refreshToken;
    await remote.client.statusTypes();
    const first = tokens.read()!;
    expect(first.refreshToken).not.toBe(seeded);

    // The token expires between calls; the margin makes the client refresh before using it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await collect(remote.client.trusts());
    const second = tokens.read()!;
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);

    // Rotation is real: the old refresh token no longer works.
    const stale = clientWith(first.refreshToken);
    await expect(stale.client.statusTypes()).rejects.toBeInstanceOf(AuthRequiredError);
  });

  it('answers a 401 on a token it believed valid with one refresh, then succeeds', async () => {
    const { sim, remote, tokens } = await start({ seed: 'demo', accessTokenTtlSeconds: 1 });
    await remote.client.statusTypes();
    const before = tokens.read()!;
    // Pretend the clock said the token was good for an hour: the service will say 401.
    tokens.save({ ...before, accessTokenExpiresAt: Date.now() + 3_600_000 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const concurrent = await Promise.all([
      remote.client.statusTypes(),
      collect(remote.client.trusts()),
      collect(remote.client.companies()),
    ]);
    expect(concurrent[0].length).toBeGreaterThan(0);
    expect(tokens.read()!.accessToken).not.toBe(before.accessToken);
    // One refresh for all three callers: the seed's exchange, then exactly one more.
    const tokenCalls = Object.entries(sim.admin.counters().api.byRoute)
      .filter(([route]) => route.startsWith('POST /oauth/token'))
      .reduce((n, [, count]) => n + count, 0);
    expect(tokenCalls).toBe(2);
  });

  it('takes the token as a request leaves the queue: a queue longer than a token lives fails nothing', async () => {
    // 2 s tokens, 4 requests a second, 24 requests at once: the last waits ~6 s in the queue.
    const { sim, remote } = await start(
      { seed: 'demo', accessTokenTtlSeconds: 2 },
      { requestsPerSecond: 4, concurrency: 2 },
    );
    const answers = await Promise.allSettled(
      Array.from({ length: 24 }, () => remote.client.statusTypes()),
    );
    expect(answers.filter((a) => a.status === 'rejected')).toEqual([]);
    // Refreshed as the tokens ran out, a few times, not once per request.
    const tokenCalls = Object.entries(sim.admin.counters().api.byRoute)
      .filter(([route]) => route.startsWith('POST /oauth/token'))
      .reduce((n, [, count]) => n + count, 0);
    expect(tokenCalls).toBeGreaterThan(1);
    expect(tokenCalls).toBeLessThan(10);
  }, 20_000);

  it('keeps its access token in memory, and takes up a grant another process stored', async () => {
    const { sim, remote, tokens, clientWith } = await start({
      seed: 'demo',
      accessTokenTtlSeconds: 2,
    });
    await remote.client.statusTypes();
    const reads = vi.spyOn(tokens, 'read');
    await Promise.all(Array.from({ length: 10 }, () => remote.client.statusTypes()));
    expect(reads).not.toHaveBeenCalled();

    // `docsync auth login` in another process stores a new grant while ours runs out.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const other = clientWith(sim.admin.mintRefreshToken());
    await other.client.statusTypes();
    const granted = other.tokens.store.read()!;
    tokens.save(granted);
    const tokenCalls = () => sim.admin.counters().api.byRoute['POST /oauth/token 200'] ?? 0;
    const before = tokenCalls();
    expect(await remote.tokens.accessToken()).toBe(granted.accessToken);
    await remote.client.statusTypes();
    expect(tokenCalls()).toBe(before);
  });

  it('stops with a message to run `docsync auth login` when the grant is revoked', async () => {
    const { clientWith } = await start({ seed: 'demo' });
    const remote = clientWith('revoked-or-invented');
    const error = await remote.client.statusTypes().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthRequiredError);
    expect((error as Error).message).toContain('docsync auth login');
  });
});

describe('API client: rate and faults', () => {
  it('keeps to the configured rate as the service counts it: a service limited to the same rate refuses nothing', async () => {
    // The governor counts a request when its bytes go out, after its connection is made: the
    // first requests, each on a new connection, arrive spaced like the rest.
    const { sim, remote } = await start(
      { seed: 'demo', rateLimitPerSecond: 5, rateModes: ['sliding', 'calendar', 'bucket'] },
      { requestsPerSecond: 5 },
    );
    const started = Date.now();
    await Promise.all(Array.from({ length: 15 }, () => remote.client.statusTypes()));
    const elapsed = Date.now() - started;
    const counts = sim.admin.counters().api.byRoute;
    expect(Object.keys(counts).filter((k) => k.endsWith(' 429'))).toEqual([]);
    // 15 requests a spacing apart cannot finish sooner.
    expect(elapsed).toBeGreaterThanOrEqual(14 * spacingMs(5) - OUT_SLACK_MS);
  });

  it('reports how long each request waited for its turn (the trace log shows it)', async () => {
    const answers: ResponseInfo[] = [];
    const { remote } = await start(
      { seed: 'demo' },
      { requestsPerSecond: 5, onResponse: (info) => answers.push(info) },
    );
    await Promise.all(Array.from({ length: 7 }, () => remote.client.statusTypes()));
    const waits = answers.map((a) => a.waitedMs).sort((a, b) => a - b);
    expect(waits).toHaveLength(7);
    // One at once, then each a spacing after the one before: the last waited six.
    expect(waits[0]).toBeLessThan(spacingMs(5));
    expect(waits[6]).toBeGreaterThanOrEqual(6 * spacingMs(5) - OUT_SLACK_MS);
  });

  it('on a 429, goes on at a lowered rate rather than pausing every request, and completes them all', async () => {
    const answers: { status: ResponseInfo['status']; at: number }[] = [];
    const { sim, remote } = await start(
      { seed: 'demo', rateLimitPerSecond: 4, rateModes: ['sliding'] },
      {
        requestsPerSecond: 10,
        onResponse: (info) => answers.push({ status: info.status, at: Date.now() }),
      },
    );
    const results = await Promise.all(
      Array.from({ length: 12 }, () => remote.client.statusTypes()),
    );
    expect(results).toHaveLength(12);
    const counts = sim.admin.counters().api.byRoute;
    expect(Object.entries(counts).some(([k, n]) => k.endsWith(' 429') && n > 0)).toBe(true);
    // The first 429's Retry-After is a second; others were answered within it.
    const first = answers.find((a) => a.status === 429)!;
    const meanwhile = answers.filter((a) => a.status === 200 && a.at > first.at);
    expect(meanwhile.filter((a) => a.at < first.at + 800).length).toBeGreaterThan(0);
    const governor = remote.queue.governor();
    expect(governor.throttles).toBeGreaterThan(0);
    expect(governor.rate).toBeLessThan(10);
  });

  it.each([
    ['server errors', { serverError: 0.4 }],
    ['429 bursts', { tooManyRequests: 0.15 }],
    ['connection resets', { reset: 0.4 }],
    ['latency', { latencyMs: 30, latencyProbability: 0.5 }],
    ['truncated downloads', { truncatedDownload: 0.5 }],
  ])('reads and downloads succeed through %s', async (_name, faults) => {
    const { sim, remote } = await start({ seed: 'demo' });
    const { doc, owner } = await firstDocument(sim);
    sim.admin.setFaults({ ...faults, seed: 7 });
    const dir = tempDir();
    for (let i = 0; i < 4; i++) {
      expect((await remote.client.document(owner, doc.id)).id).toBe(doc.id);
      const attachment = doc.attachments[0]!;
      const result = await remote.client.downloadAttachment(
        owner,
        doc.id,
        attachment.id,
        path.join(dir, `a${i}`),
      );
      expect(result.sha256).toBe(attachment.sha256);
    }
    expect(await collect(remote.client.documents(owner))).not.toHaveLength(0);
  });

  it('never repeats a create blindly: a reset after sending is reported as OUTCOME_UNKNOWN', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const owner = (await sim.admin.dump()).documents[0]!.owner as OwnerRef;
    sim.admin.setFaults({ reset: 1, seed: 3 });
    const error = await remote.client
      .createDocument(owner, { name: 'Maybe', documentDate: '2026-11-21' })
      .catch((e: unknown) => e);
    sim.admin.setFaults({});
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('OUTCOME_UNKNOWN');
    const posts = Object.entries(sim.admin.counters().api.byRoute).filter(
      ([k]) => k.startsWith('POST /') && !k.includes('oauth'),
    );
    expect(posts.reduce((n, [, c]) => n + c, 0)).toBeLessThanOrEqual(1);
  });

  it('says an upload whose file cannot be read was never sent, not that it may have been', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const { doc, owner } = await firstDocument(sim);
    sim.admin.resetCounters();
    const gone = path.join(tempDir(), 'gone.pdf');

    const error = await remote.client
      .uploadAttachment(owner, doc.id, namedUploadSource(gone), 'gone.pdf')
      .catch((e: unknown) => e);

    expect(error).not.toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'UPLOAD_UNREADABLE' });
    expect((error as Error).message).toMatch(/could not read what to send .*; nothing was sent$/);
    const uploads = Object.keys(sim.admin.counters().api.byRoute).filter((k) =>
      k.includes('/attachments'),
    );
    expect(uploads).toEqual([]);
  });

  it('asks for a new link when a download link has expired', async () => {
    const { sim, remote } = await start({ seed: 'demo', linkTtlSeconds: 1 });
    const { doc, owner } = await firstDocument(sim);
    // Every API answer is held 1.2 s, so the link it carries is stale by the time it is used...
    sim.admin.setFaults({ latencyMs: 1200, latencyProbability: 0.5, seed: 11 });
    const attachment = doc.attachments[0]!;
    const result = await remote.client.downloadAttachment(
      owner,
      doc.id,
      attachment.id,
      path.join(tempDir(), 'a'),
    );
    expect(result.sha256).toBe(attachment.sha256);
  });

  it('writes no download through a link put where it was to be saved', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const { doc, owner } = await firstDocument(sim);
    const dir = tempDir();
    // docsync's own file, which a link in its staging folder must not let the service overwrite.
    const precious = path.join(dir, 'docsync.json');
    writeFileSync(precious, '{"service":{}}\n');
    const dest = path.join(dir, 'a.pdf');
    symlinkSync(precious, dest);

    const error = await remote.client
      .downloadAttachment(owner, doc.id, doc.attachments[0]!.id, dest)
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'DOWNLOAD_THROUGH_LINK' });
    expect((error as Error).message).toMatch(/a\.pdf is a symbolic link: .*nothing was written/);
    expect(readFileSync(precious, 'utf8')).toBe('{"service":{}}\n');
  });

  it('never sends the bearer token to the download link host', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const dir = tempDir();
    const docs = (await sim.admin.dump()).documents
      .filter((d) => d.attachments.length > 0)
      .slice(0, 5);
    for (const doc of docs) {
      for (const a of doc.attachments) {
        await remote.client.downloadAttachment(
          doc.owner as OwnerRef,
          doc.id,
          a.id,
          path.join(dir, a.id),
        );
      }
    }
    const links = sim.admin.counters().links;
    expect(links.requests).toBeGreaterThan(0);
    expect(links.withAuthorization).toBe(0);
  });
});

describe('API client: malformed answers', () => {
  let proxy: Server | undefined;
  afterEach(() => proxy?.close());

  /** A real HTTP hop in front of the simulator that breaks items of every document list. */
  async function corruptingProxy(
    target: string,
    breakList = (documents: Record<string, unknown>[]) => {
      documents[1]!.lastUpdatedTimestamp = 12;
    },
  ): Promise<string> {
    proxy = createServer((req, res) => {
      const upstream = httpRequest(
        `${target}${req.url}`,
        { method: req.method, headers: req.headers },
        (up) => {
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            let body = Buffer.concat(chunks).toString();
            if (/\/documents(\?|$)/.test(req.url ?? '') && up.statusCode === 200) {
              const json = JSON.parse(body);
              breakList(json.documents);
              body = JSON.stringify(json);
            }
            if (/\/documents\/\d+$/.test(req.url ?? '')) body = '{"id": 1, "name": ';
            res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json' });
            res.end(body);
          });
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const address = proxy.address() as { port: number };
    return `http://127.0.0.1:${address.port}`;
  }

  it('reports a malformed list item by id and keeps the rest; a garbled body is an ApiError', async () => {
    const { sim, clientWith } = await start({ seed: 'demo' });
    const remote = clientWith(sim.admin.mintRefreshToken(), await corruptingProxy(sim.apiUrl));
    const { owner } = await firstDocument(sim);
    const entries: DocumentListEntry[] = await collect(remote.client.documents(owner));
    const bad = entries.filter((e) => 'malformed' in e);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ malformed: true, id: expect.any(String) });
    const error = bad[0] && 'error' in bad[0] ? bad[0].error : null;
    expect(error).toBeInstanceOf(ApiError);
    expect(error?.message).toContain('lastUpdatedTimestamp');
    expect(entries.length - bad.length).toBeGreaterThan(0);

    const garbled = await remote.client.document(owner, bad[0]!.id!).catch((e: unknown) => e);
    expect(garbled).toBeInstanceOf(ApiError);
    expect((garbled as ApiError).code).toBe('MALFORMED_RESPONSE');
  });

  it('lists versions as the full list does, reporting only a broken id or timestamp', async () => {
    const { sim, clientWith } = await start({ seed: 'demo' });
    const breakList = (documents: Record<string, unknown>[]) => {
      documents[0]!.name = 42; // a field the versions do not read
      documents[1]!.lastUpdatedTimestamp = '03/07/2020';
    };
    const remote = clientWith(
      sim.admin.mintRefreshToken(),
      await corruptingProxy(sim.apiUrl, breakList),
    );
    const { owner } = await firstDocument(sim);
    const full = await collect(remote.client.documents(owner));
    const versions = await collect(remote.client.documentVersions(owner));
    const malformed = (e: (typeof full | typeof versions)[number]) => 'malformed' in e;
    expect(full.map(malformed).slice(0, 2)).toEqual([true, true]);
    expect(versions.map(malformed).slice(0, 2)).toEqual([false, true]);
    expect(versions.map((e) => e.id)).toEqual(full.map((e) => e.id));
    for (const [i, entry] of versions.entries()) {
      const listed = full[i]!;
      if (!('malformed' in entry) && !('malformed' in listed))
        expect(entry).toEqual({ id: listed.id, lastUpdatedTimestamp: listed.lastUpdatedTimestamp });
    }
  });
});
