import { describe, expect, it } from 'vitest';
import { useSimulators } from './sim-fixture.js';

const start = useSimulators();

async function firmWithCompany() {
  const session = await start();
  const company = session.sim.admin.createCompany({ name: 'Acme Pty Ltd', number: '123456780' });
  return { ...session, companyId: company.id as string };
}

describe('simulator documents', () => {
  it('serves every path with and without the /cas prefix', async () => {
    const { json, companyId } = await firmWithCompany();
    for (const prefix of ['', '/cas']) {
      const list = await json('GET', `${prefix}/companies?offset=0&limit=10&details=true`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ offset: 0, limit: 10, total: 1 });
      expect(list.body.companies[0]).toMatchObject({
        id: companyId,
        number: '123456780',
        details: { labels: [] },
      });
      expect((await json('GET', `${prefix}/companies/${companyId}`)).body).not.toHaveProperty(
        'details',
      );
      expect(
        (await json('GET', `${prefix}/documents/statusTypes`)).body.statusTypes,
      ).toContainEqual({ id: 2, name: 'DOCUMENT PREPARED' });
    }
  });

  it('creates a document with RECEIVED when no status is given, and answers 422 to an unknown status type', async () => {
    const { json, companyId } = await firmWithCompany();
    const created = await json('POST', `/companies/${companyId}/documents`, {
      name: 'Minutes',
      documentDate: '2024-05-01',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Minutes',
      documentDate: '2024-05-01',
      asicDocNumber: null,
      attachments: [],
      status: { type: 'RECEIVED', typeId: 10 },
    });
    expect(typeof created.body.id).toBe('number');
    expect(typeof created.body.traceNumber).toBe('string');
    const bad = await json('POST', `/companies/${companyId}/documents`, {
      name: 'X',
      documentDate: '2024-05-01',
      status: { typeId: 999 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed' });
    const prepared = await json('POST', `/companies/${companyId}/documents`, {
      name: 'Y',
      documentDate: '2024-05-01',
      status: { typeId: 2 },
    });
    expect(prepared.body.status).toMatchObject({ type: 'DOCUMENT PREPARED', typeId: 2 });
  });

  it('shows microseconds in lists and whole seconds in details for the same document', async () => {
    const { json, companyId } = await firmWithCompany();
    const { body: doc } = await json('POST', `/companies/${companyId}/documents`, {
      name: 'A',
      documentDate: '2024-05-01',
    });
    const { body: list } = await json(
      'GET',
      `/companies/${companyId}/documents?offset=0&limit=500`,
    );
    const listed = list.documents[0].lastUpdatedTimestamp as string;
    expect(listed).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/);
    const details = await json('GET', `/companies/${companyId}/documents/${doc.id}`);
    expect(details.body.lastUpdatedTimestamp).toBe(listed.slice(0, 19));
  });

  it('pages with offset and limit, both required, limit at most 500', async () => {
    const session = await start({
      seed: { companies: 1, trusts: 0, documentsPerEntity: 501, attachmentsPerDocument: 0 },
    });
    const { body: companies } = await session.json('GET', '/cas/companies?offset=0&limit=1');
    const base = `/companies/${companies.companies[0].id}/documents`;
    const full = await session.json('GET', `${base}?offset=0&limit=500`);
    expect(full.body).toMatchObject({ offset: 0, limit: 500, total: 501 });
    expect(full.body.documents).toHaveLength(500);
    const last = await session.json('GET', `${base}?offset=500&limit=500`);
    expect(last.body.documents).toHaveLength(1);
    expect(last.body.documents[0].id).not.toBe(full.body.documents[499].id);
    const beyond = await session.json('GET', `${base}?offset=501&limit=10`);
    expect(beyond.body).toMatchObject({ documents: [], total: 501 });
    for (const query of [
      'offset=0&limit=501',
      'limit=10',
      'offset=0',
      'offset=-1&limit=5',
      'offset=0&limit=x',
      '',
    ]) {
      const answer = await session.json('GET', `${base}?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe('bad_request');
    }
  });

  it('lists only documents strictly later than updatedAfter, with or without Z, and rejects other formats', async () => {
    const { sim, json, companyId } = await firmWithCompany();
    const { body: first } = await json('POST', `/companies/${companyId}/documents`, {
      name: 'A',
      documentDate: '2024-05-01',
    });
    await new Promise((r) => setTimeout(r, 1100));
    const { body: second } = await json('POST', `/companies/${companyId}/documents`, {
      name: 'B',
      documentDate: '2024-05-01',
    });
    const secondSeconds = second.lastUpdatedTimestamp as string;
    const base = `/companies/${companyId}/documents?offset=0&limit=500&updatedAfter=`;
    for (const suffix of ['', 'Z']) {
      const before = await json('GET', `${base}${first.lastUpdatedTimestamp}${suffix}`);
      const ids = before.body.documents.map((d: any) => d.id);
      // The first document's fraction of a second is after its whole second: strictly later.
      expect(ids).toEqual([first.id, second.id]);
    }
    const after = await json('GET', `${base}${secondSeconds.slice(0, 17)}59`);
    expect(after.body.documents.filter((d: any) => d.id === first.id)).toEqual([]);
    const fromDump = (await sim.admin.dump()).documents.find((d) => d.id === String(first.id))!;
    const exact = await json('GET', `${base}${fromDump.lastUpdatedTimestamp.slice(0, 19)}`);
    expect(exact.body.documents.map((d: any) => d.id)).toContain(first.id);
    for (const bad of [
      '2024-05-01',
      '2024-05-01T10:00:00.123',
      '2024-05-01T10:00:00+00:00',
      '2024-02-31T00:00:00',
      'yesterday',
      '',
    ]) {
      const answer = await json('GET', `${base}${encodeURIComponent(bad)}`);
      expect(answer.status, bad).toBe(400);
    }
  });

  it('assigns a new status as a new status record and moves lastUpdatedTimestamp forward', async () => {
    const { json, companyId } = await firmWithCompany();
    const { body: doc } = await json('POST', `/companies/${companyId}/documents`, {
      name: 'A',
      documentDate: '2024-05-01',
    });
    const listed = async () =>
      (await json('GET', `/companies/${companyId}/documents?offset=0&limit=5`)).body.documents[0];
    const before = await listed();
    const status = await json('POST', `/cas/companies/${companyId}/documents/${doc.id}/statuses`, {
      typeId: 3,
      effectiveDate: '2024-06-01',
    });
    expect(status.status).toBe(201);
    expect(status.body).toMatchObject({
      type: 'SENT TO CLIENT',
      typeId: 3,
      effectiveDate: '2024-06-01',
      createdBy: expect.any(String),
    });
    expect(status.body.id).not.toBe(doc.status.id);
    const after = await listed();
    expect(after.lastUpdatedTimestamp > before.lastUpdatedTimestamp).toBe(true);
    expect(after.status.id).toBe(status.body.id);
    const unknown = await json('POST', `/companies/${companyId}/documents/${doc.id}/statuses`, {
      typeId: 77,
      effectiveDate: '2024-06-01',
    });
    expect(unknown.status).toBe(422);
  });

  it('deletes a document (204, then 404) and hides documents of another owner', async () => {
    const { sim, json, companyId } = await firmWithCompany();
    const other = sim.admin.createCompany({ name: 'Other Pty Ltd' });
    const { body: doc } = await json('POST', `/companies/${companyId}/documents`, {
      name: 'A',
      documentDate: '2024-05-01',
    });
    expect((await json('GET', `/companies/${other.id}/documents/${doc.id}`)).status).toBe(404);
    expect((await json('DELETE', `/companies/${other.id}/documents/${doc.id}`)).status).toBe(404);
    expect((await json('DELETE', `/companies/${companyId}/documents/${doc.id}`)).status).toBe(204);
    const gone = await json('GET', `/companies/${companyId}/documents/${doc.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    expect((await json('GET', '/companies/nope/documents?offset=0&limit=5')).status).toBe(404);
  });

  it('offers the same document operations for trusts', async () => {
    const { sim, json } = await start();
    const trust = sim.admin.createTrust({ name: 'Smith Family Trust', abn: null });
    const { body: trusts } = await json('GET', '/cas/trusts?offset=0&limit=10');
    expect(trusts.trusts[0]).toEqual({ ...trust, abn: null });
    expect(trusts.trusts[0]).not.toHaveProperty('trusteeCompanyId');
    const created = await json('POST', `/trusts/${trust.id}/documents`, {
      name: 'Deed',
      documentDate: '2023-01-02',
      asicDocNumber: null,
    });
    expect(created.status).toBe(201);
    const status = await json(
      'POST',
      `/cas/trusts/${trust.id}/documents/${created.body.id}/statuses`,
      { typeId: '20', effectiveDate: '2024-01-01' },
    );
    expect(status.body.type).toBe('CANCELLED');
    expect((await json('GET', `/trusts/${trust.id}/documents?offset=0&limit=10`)).body.total).toBe(
      1,
    );
    expect((await json('DELETE', `/trusts/${trust.id}/documents/${created.body.id}`)).status).toBe(
      204,
    );
  });
});
