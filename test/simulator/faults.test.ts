import { describe, expect, it } from 'vitest';
import { authorize, useSimulators } from './sim-fixture.js';

const start = useSimulators();
const LIST = '/cas/companies?offset=0&limit=10';

describe('simulator faults and rate limit', () => {
  it('answers 500, 502 or 503 with the error body for the serverError fault', async () => {
    const session = await start();
    session.sim.admin.setFaults({ serverError: 1 });
    const answer = await session.json('GET', LIST);
    expect([500, 502, 503]).toContain(answer.status);
    expect(answer.body.error.code).toBe('injected_fault');
    // The admin API is a test tool: never faulted.
    expect((await fetch(`${session.sim.apiUrl}/_admin/counters`)).status).toBe(200);
  });

  it('always fails a broken route with its status, with or without /cas, and only that one', async () => {
    const session = await start({ faults: { routes: { '/companies': 503 } } });
    for (const path of [LIST, '/companies?offset=0&limit=10']) {
      const answer = await session.json('GET', path);
      expect(answer.status).toBe(503);
      expect(answer.body.error).toEqual({
        code: 'injected_fault',
        message: 'Injected failure of /companies',
      });
    }
    expect((await session.call('GET', '/cas/trusts?offset=0&limit=10')).status).toBe(200);
  });

  it('answers a slow route late, and only that one', async () => {
    const session = await start({ faults: { routeLatencyMs: { '/companies': 400 } } });
    const timed = async (path: string) => {
      const startedAt = Date.now();
      expect((await session.call('GET', path)).status).toBe(200);
      return Date.now() - startedAt;
    };
    expect(await timed(LIST)).toBeGreaterThanOrEqual(400);
    expect(await timed('/cas/trusts?offset=0&limit=10')).toBeLessThan(400);
  });

  it('carries out a held route at once and answers it only when released, over HTTP too', async () => {
    const session = await start({ seed: { companies: 1, trusts: 0, documentsPerEntity: 0 } });
    const company = (await session.sim.admin.dump()).companies[0]!;
    const admin = (method: string, body?: unknown) =>
      fetch(`${session.sim.apiUrl}/_admin/holds`, {
        method,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    await admin('POST', { method: 'POST', template: '/companies/{ownerId}/documents' });
    let answered = false;
    const create = session
      .json('POST', `/cas/companies/${company.id}/documents`, {
        name: 'Held',
        documentDate: '2026-10-20',
      })
      .finally(() => (answered = true));
    // The request is carried out while its answer waits: the service holds the document.
    await expect.poll(async () => ((await (await admin('GET')).json()) as any).held).toBe(1);
    expect((await session.sim.admin.dump()).documents.map((d) => d.name)).toEqual(['Held']);
    expect(answered).toBe(false);
    // Other routes are not held.
    expect((await session.call('GET', LIST)).status).toBe(200);
    expect((await admin('DELETE')).status).toBe(204);
    expect((await create).status).toBe(201);
    expect(session.sim.admin.heldAnswers()).toBe(0);
  });

  it('answers 429 with Retry-After for the tooManyRequests fault', async () => {
    const session = await start({ faults: { tooManyRequests: 1 } });
    const answer = await session.call('GET', LIST);
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('1');
  });

  it('drops the connection for the reset fault', async () => {
    const session = await start();
    session.sim.admin.setFaults({ reset: 1 });
    await expect(session.call('GET', LIST)).rejects.toThrow();
    expect(session.sim.admin.counters().api.byRoute['GET /companies 0']).toBe(1);
    session.sim.admin.setFaults({});
    expect((await session.call('GET', LIST)).status).toBe(200);
  });

  it('sends fewer bytes than Content-Length for the truncatedDownload fault', async () => {
    const session = await start({
      seed: {
        companies: 1,
        trusts: 0,
        documentsPerEntity: 1,
        attachmentsPerDocument: 1,
        attachmentBytes: 10_000,
      },
    });
    const doc = (await session.sim.admin.dump()).documents[0]!;
    const base = `/companies/${doc.owner.id}/documents/${doc.id}/attachments/${doc.attachments[0]!.id}/download`;
    session.sim.admin.setFaults({ truncatedDownload: 1 });
    const link = await session.json('GET', base);
    expect(link.status).toBe(200);
    const file = await fetch(link.body.url);
    expect(file.headers.get('content-length')).toBe('10000');
    await expect(file.arrayBuffer()).rejects.toThrow();
    session.sim.admin.setFaults({});
    const whole = await fetch(link.body.url);
    expect((await whole.arrayBuffer()).byteLength).toBe(10_000);
  });

  it('adds latency with latencyMs', async () => {
    const session = await start({ faults: { latencyMs: 250 } });
    const began = Date.now();
    expect((await session.call('GET', LIST)).status).toBe(200);
    expect(Date.now() - began).toBeGreaterThanOrEqual(240);
  });

  it('repeats the same faults for the same seed', async () => {
    const statuses = async () => {
      const session = await start({ faults: { serverError: 0.5, seed: 7 } });
      const out: number[] = [];
      for (let i = 0; i < 12; i++)
        out.push((await session.call('GET', LIST)).status >= 500 ? 1 : 0);
      return out;
    };
    const first = await statuses();
    expect(first).toContain(1);
    expect(first).toContain(0);
    expect(await statuses()).toEqual(first);
  });

  it('limits requests per access token with 429 and Retry-After, other tokens unaffected', async () => {
    const session = await start({ rateLimitPerSecond: 5 });
    const answers = await Promise.all(Array.from({ length: 7 }, () => session.call('GET', LIST)));
    const limited = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(limited).toHaveLength(2);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await limited[0]!.json()) as any).error.code).toBe('rate_limited');
    const other = (await authorize(session.sim)).access_token;
    const fresh = await fetch(`${session.sim.apiUrl}${LIST}`, {
      headers: { Authorization: `Bearer ${other}` },
    });
    expect(fresh.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1050));
    expect((await session.call('GET', LIST)).status).toBe(200);
    const counters = session.sim.admin.counters().api;
    expect(counters.byRoute['GET /companies 429']).toBe(2);
    expect(counters.byToken[session.token]).toBe(8);
  });
});
