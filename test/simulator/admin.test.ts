import { describe, expect, it } from 'vitest';
import { basic, useSimulators } from './sim-fixture.js';

const start = useSimulators();

async function admin(apiUrl: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${apiUrl}/_admin${path}`, {
    method,
    ...(body !== undefined
      ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('simulator admin API over HTTP', () => {
  it('changes the firm as a service user would, and every change shows through the API', async () => {
    const { sim, json } = await start();
    const url = sim.apiUrl;
    const company = (
      await admin(url, 'POST', '/companies', { name: 'Admin Pty Ltd', number: '111222333' })
    ).body;
    expect(company).toMatchObject({ name: 'Admin Pty Ltd', number: '111222333' });
    const doc = await admin(url, 'POST', '/documents', {
      owner: { kind: 'company', id: company.id },
      name: 'Notice',
      documentDate: '2024-02-03',
    });
    expect(doc.status).toBe(201);
    const stamps: string[] = [];
    const stamp = async () =>
      stamps.push(
        (await json('GET', `/companies/${company.id}/documents?offset=0&limit=5`)).body.documents[0]
          .lastUpdatedTimestamp,
      );
    await stamp();
    expect(
      (await admin(url, 'POST', `/documents/${doc.body.id}/statuses`, { typeId: 3 })).body.type,
    ).toBe('SENT TO CLIENT');
    await stamp();
    const added = await admin(url, 'POST', `/documents/${doc.body.id}/attachments`, {
      name: 'Report.pdf',
      contentBase64: Buffer.from('report').toString('base64'),
      system: true,
    });
    expect(added.body.id).toMatch(/^F\d+$/);
    await stamp();
    const user = await admin(url, 'POST', `/documents/${doc.body.id}/attachments`, {
      name: 'Note.txt',
      contentBase64: Buffer.from('note').toString('base64'),
    });
    expect(
      (await admin(url, 'DELETE', `/documents/${doc.body.id}/attachments/${user.body.id}`)).status,
    ).toBe(204);
    await stamp();
    expect([...stamps].sort()).toEqual(stamps);
    expect(new Set(stamps).size).toBe(stamps.length);
    const state = (await admin(url, 'GET', '/state')).body;
    expect(state.documents[0].attachments).toEqual([
      expect.objectContaining({
        id: added.body.id,
        kind: 'system',
        size: 6,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect((await admin(url, 'DELETE', `/documents/${doc.body.id}`)).status).toBe(204);
    expect((await json('GET', `/companies/${company.id}/documents/${doc.body.id}`)).status).toBe(
      404,
    );
    expect((await admin(url, 'DELETE', `/documents/${doc.body.id}`)).status).toBe(404);
  });

  it('seeds a firm, mints a usable refresh token and reports counters', async () => {
    const { sim } = await start();
    const url = sim.apiUrl;
    const seeded = await admin(url, 'POST', '/seed', {
      companies: 2,
      trusts: 3,
      documentsPerEntity: 4,
      attachmentsPerDocument: 1,
      seed: 5,
    });
    expect(seeded.body).toEqual({ companies: 2, trusts: 3, documents: 20, attachments: 20 });
    const { refreshToken } = (await admin(url, 'POST', '/refresh-tokens', {})).body;
    const tokens = (await (
      await fetch(`${url}/oauth/token?grant_type=refresh_token&refresh_token=${refreshToken}`, {
        method: 'POST',
        headers: { Authorization: basic(sim) },
      })
    ).json()) as any;
    await admin(url, 'DELETE', '/counters');
    for (let i = 0; i < 3; i++)
      await fetch(`${url}/cas/trusts?offset=0&limit=1`, {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      });
    await fetch(`${url}/trusts?offset=0`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    const counters = (await admin(url, 'GET', '/counters')).body;
    expect(counters.api.byRoute).toEqual({ 'GET /trusts 200': 3, 'GET /trusts 400': 1 });
    expect(counters.api.byToken).toEqual({ [tokens.access_token]: 4 });
    expect(counters.links).toEqual({ requests: 0, withAuthorization: 0, byStatus: {} });
  });

  it('counts the companies and trusts whose document list was read, each once, until a reset', async () => {
    const { sim, json } = await start({
      seed: { companies: 2, trusts: 2, documentsPerEntity: 2, attachmentsPerDocument: 0, seed: 3 },
    });
    const url = sim.apiUrl;
    const company = (await json('GET', '/companies?offset=0&limit=5')).body.companies[0];
    const trust = (await json('GET', '/trusts?offset=0&limit=5')).body.trusts[1];
    await admin(url, 'DELETE', '/counters');
    // Two pages of one company's list, one trust's, a document's details, an unknown owner.
    await json('GET', `/companies/${company.id}/documents?offset=0&limit=1`);
    const page = await json('GET', `/companies/${company.id}/documents?offset=1&limit=1`);
    await json('GET', `/trusts/${trust.id}/documents?offset=0&limit=5`);
    await json('GET', `/companies/${company.id}/documents/${page.body.documents[0].id}`);
    await json('GET', '/trusts/999999/documents?offset=0&limit=5');
    expect((await admin(url, 'GET', '/counters')).body.api.listedOwners).toBe(2);
    await admin(url, 'DELETE', '/counters');
    expect((await admin(url, 'GET', '/counters')).body.api.listedOwners).toBe(0);
  });

  it('sets faults, the webhook target and reads the delivery log at run time', async () => {
    const { sim, call } = await start();
    const url = sim.apiUrl;
    expect((await admin(url, 'PUT', '/faults', { serverError: 1 })).status).toBe(204);
    expect((await admin(url, 'GET', '/faults')).body).toEqual({ serverError: 1 });
    expect((await call('GET', '/companies?offset=0&limit=1')).status).toBeGreaterThanOrEqual(500);
    await admin(url, 'PUT', '/faults', {});
    expect(
      (
        await admin(url, 'PUT', '/webhook', {
          url: 'http://127.0.0.1:9/nowhere',
          clientCode: 'C',
          secret: 'k',
        })
      ).status,
    ).toBe(204);
    const company = sim.admin.createCompany({ name: 'Hook Pty Ltd' });
    sim.admin.createDocument({ owner: { kind: 'company', id: company.id }, name: 'X' });
    await new Promise((r) => setTimeout(r, 200));
    const log = (await admin(url, 'GET', '/webhook/deliveries')).body;
    expect(log[0]).toMatchObject({
      eventSubType: 'newDocument',
      attempt: 1,
      status: null,
      delivered: false,
      nextRetryInMs: 1000,
    });
    expect((await admin(url, 'GET', '/nothing')).status).toBe(404);
    const page = await fetch(`${sim.webUrl}/s/html/main.html#/company/documents?cid=${company.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it("holds a firm of 100,000 documents and lists one owner's, whole or after a moment", async () => {
    // How fast is the benchmarks' business (they seed firms this size), not a test's.
    const { sim, json } = await start({
      seed: {
        companies: 500,
        trusts: 500,
        documentsPerEntity: 100,
        attachmentsPerDocument: 1,
        attachmentBytes: 2048,
      },
    });
    const { body: trusts } = await json('GET', '/trusts?offset=0&limit=500');
    expect(trusts.total).toBe(500);
    const trust = trusts.trusts[250];
    const all = await json('GET', `/trusts/${trust.id}/documents?offset=0&limit=500`);
    const some = await json(
      'GET',
      `/trusts/${trust.id}/documents?offset=0&limit=500&updatedAfter=${all.body.documents[49].lastUpdatedTimestamp.slice(0, 19)}Z`,
    );
    expect(all.body.total).toBe(100);
    expect(some.body.total).toBeGreaterThanOrEqual(50);
    expect(some.body.total).toBeLessThanOrEqual(51);
    const doc = all.body.documents[0];
    const details = await json('GET', `/trusts/${trust.id}/documents/${doc.id}`);
    const link = await json(
      'GET',
      `/trusts/${trust.id}/documents/${doc.id}/attachments/${details.body.attachments[0].id}/download`,
    );
    expect((await (await fetch(link.body.url)).arrayBuffer()).byteLength).toBe(2048);
    expect(sim.admin.counters().api.total).toBeGreaterThan(0);
  });
});
