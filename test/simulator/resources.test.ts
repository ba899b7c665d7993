import { describe, expect, it } from 'vitest';
import { isValidAbn } from '../../src/simulator/au-numbers.js';
import { useSimulators } from './sim-fixture.js';

const start = useSimulators();

async function demo() {
  const session = await start({ seed: 'demo' });
  const { body } = await session.json('GET', '/cas/trusts?offset=0&limit=500');
  const unit = body.trusts.find((t: any) => t.type === 'UNIT');
  const other = body.trusts.find((t: any) => t.type !== 'UNIT');
  return { ...session, trusts: body.trusts, unit, other };
}

describe('simulator demo firm and other resources', () => {
  it('seeds a plausible firm: valid ACNs and ABNs, a trust without ABN, PDFs as attachments', async () => {
    const { json, trusts, sim } = await demo();
    const { body } = await json('GET', '/companies?offset=0&limit=500&details=true');
    expect(body.total).toBeGreaterThanOrEqual(3);
    for (const company of body.companies) {
      expect(company.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
      expect(company.number).toMatch(/^\d{9}$/);
      expect(isValidAbn(company.businessNumber)).toBe(true);
    }
    expect(body.companies.some((c: any) => c.details.superFundContactIds?.length > 0)).toBe(true);
    expect(trusts.some((t: any) => t.abn === null)).toBe(true);
    expect(trusts.filter((t: any) => t.abn !== null).every((t: any) => isValidAbn(t.abn))).toBe(
      true,
    );
    const state = await sim.admin.dump();
    expect(new Set(state.documents.map((d) => d.status.type)).size).toBeGreaterThanOrEqual(4);
    const kinds = new Set(state.documents.flatMap((d) => d.attachments.map((a) => a.kind)));
    expect(kinds).toEqual(new Set(['user', 'system']));
    const doc = state.documents[0]!;
    const link = await json(
      'GET',
      `/${doc.owner.kind === 'company' ? 'companies' : 'trusts'}/${doc.owner.id}/documents/${doc.id}/attachments/${doc.attachments[0]!.id}/download`,
    );
    const bytes = Buffer.from(await (await fetch(link.body.url)).arrayBuffer());
    expect(bytes.subarray(0, 8).toString()).toBe('%PDF-1.4');
    expect(bytes.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
  });

  it('lists unit transactions of a UNIT trust, creates and deletes them, and answers 409 for other trusts', async () => {
    const { json, unit, other } = await demo();
    const base = `/cas/trusts/${unit.id}/unitTransactions`;
    const list = await json('GET', `${base}?offset=0&limit=50`);
    expect(list.body.total).toBe(2);
    expect(list.body.unitTransactions[0]).toMatchObject({
      type: 'Initial',
      unitType: { currency: 'AUD', unitClass: { cCode: 'ORD' } },
    });
    const created = await json('POST', base, {
      unitholderId: list.body.unitTransactions[0].unitholderId,
      type: 'Allotment',
      transactionDate: '2024-07-01',
      numberOfUnits: 10,
      certificateType: 'Transaction',
    });
    expect(created.status).toBe(201);
    expect((await json('POST', base, { type: 'Bonus' })).status).toBe(422);
    expect((await json('DELETE', `${base}/${created.body.id}`)).status).toBe(204);
    expect((await json('DELETE', `${base}/${created.body.id}`)).status).toBe(404);
    const conflict = await json('GET', `/cas/trusts/${other.id}/unitTransactions?offset=0&limit=5`);
    expect(conflict.status).toBe(409);
    expect((await json('POST', `/cas/trusts/${other.id}/unitTransactions`, {})).status).toBe(409);
  });

  it('shows ceased relationships only with includeHistory', async () => {
    const { json, other } = await demo();
    const base = `/cas/trusts/${other.id}/relationships?offset=0&limit=50`;
    const current = await json('GET', base);
    const history = await json('GET', `${base}&includeHistory=true`);
    expect(history.body.total).toBe(current.body.total + 1);
    expect(current.body.trustRelationships[0]).not.toHaveProperty('ceasedDate');
    const ceased = history.body.trustRelationships.find((r: any) => r.ceasedDate !== null);
    expect(ceased).toMatchObject({ relationshipType: 'SETTLOR', contactId: expect.any(Number) });
    expect(
      history.body.trustRelationships.find((r: any) => r.relationshipType === 'TRUSTEE'),
    ).toHaveProperty('companyId');
  });

  it('lists contacts with superFundContactIds only when details are asked for', async () => {
    const { json } = await demo();
    const plain = await json('GET', '/contacts?offset=0&limit=50');
    expect(plain.body.total).toBeGreaterThan(3);
    expect(plain.body.contacts[0]).not.toHaveProperty('superFundContactIds');
    const person = plain.body.contacts.find((c: any) => c.contactType === 'People');
    expect(person).toMatchObject({ firstName: expect.any(String), lastName: expect.any(String) });
    const one = await json('GET', `/contacts/${person.id}?details=true`);
    expect(one.body.superFundContactIds).toEqual(expect.any(Array));
    expect((await json('GET', '/contacts/1?details=true')).status).toBe(404);
  });

  it('answers the pension summary with reversion fields, null where not reverted', async () => {
    const { json, sim } = await demo();
    const fundId = (await sim.admin.dump()).funds[0]!.id;
    const summary = await json(
      'GET',
      `/sf/funds/${fundId}/reports/pensionSummary?financialYear=2025`,
    );
    expect(summary.status).toBe(200);
    const accounts = summary.body.pensions.flatMap((p: any) => p.accounts);
    expect(accounts.some((a: any) => a.reversionDate !== null)).toBe(true);
    expect(
      accounts.some(
        (a: any) => a.reversionAccountCode === null && a.reversionaryPensionDateOfDeath === null,
      ),
    ).toBe(true);
    expect(summary.body.fundPensionPayments).toBe(
      accounts.reduce((s: number, a: any) => s + a.grossPensionPayments, 0),
    );
    expect(
      (await json('GET', `/sf/funds/${fundId}/reports/pensionSummary?financialYear=25`)).status,
    ).toBe(400);
    expect(
      (await json('GET', '/sf/funds/1/reports/pensionSummary?financialYear=2025')).status,
    ).toBe(404);
  });

  it('lists unlodged documents for companies only, per company and firm-wide', async () => {
    const { json, sim, unit } = await demo();
    const company = sim.admin.createCompany({ name: 'Lodge Pty Ltd' });
    const owner = { kind: 'company' as const, id: company.id };
    const pending = sim.admin.createDocument({
      owner,
      name: 'Form 484',
      asicDocNumber: '2E1234567',
      statusTypeId: 2,
    });
    sim.admin.createDocument({
      owner,
      name: 'Form 484 lodged',
      asicDocNumber: '2E7654321',
      statusTypeId: 21,
    });
    sim.admin.createDocument({ owner, name: 'Letter' });
    const mine = await json(
      'GET',
      `/cas/companies/${company.id}/documents/unlodged?offset=0&limit=50`,
    );
    expect(mine.body.documents.map((d: any) => d.id)).toEqual([pending.id]);
    const firm = await json('GET', '/cas/companies/documents/unlodged?offset=0&limit=500');
    expect(firm.body.documents.map((d: any) => d.id)).toContain(pending.id);
    // The service's public item: the company as an object, the lodgement's details, and no
    // field the public docs do not show (no companyId, no lastUpdatedTimestamp).
    const item = firm.body.documents.find((d: any) => d.id === pending.id);
    expect(Object.keys(item).sort()).toEqual([
      'asicDocNumber',
      'company',
      'documentDate',
      'id',
      'lodgementDetails',
      'name',
      'status',
      'traceNumber',
    ]);
    expect(item.company).toMatchObject({ id: company.id, name: 'Lodge Pty Ltd' });
    expect(item.lodgementDetails).toEqual({
      lodgementDeadlineDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      preparedBy: expect.any(String),
      changesSummary: 'Change to company details',
      lodgementURL: `${sim.webUrl}/s/html/main.html#/company/documents?cid=${company.id}`,
      electronic: true,
    });
    expect(mine.body.documents[0]).toEqual(item);
    expect(
      (await json('GET', `/cas/trusts/${unit.id}/documents/unlodged?offset=0&limit=5`)).status,
    ).toBe(404);
  });

  it('lists companies by label', async () => {
    const { json } = await demo();
    const { body } = await json('GET', '/companies?offset=0&limit=50&details=true');
    const labelled = body.companies.find((c: any) => c.details.labels.length > 0);
    expect(labelled).toBeDefined();
    const byLabel = await json('GET', '/cas/labels/11/companies?offset=0&limit=50&details=true');
    expect(byLabel.body.companies.map((c: any) => c.id)).toContain(labelled.id);
    expect(byLabel.body.companies[0].details).toHaveProperty('superFundContactIds');
    expect((await json('GET', '/cas/labels/999/companies?offset=0&limit=50')).status).toBe(404);
  });
});
