/**
 * The firm-wide unlodged list as the daemon's sweep reads it (issue 28), in both readings of the
 * service: paged like every list (500 at most, offset and limit required, a total), holding
 * exactly the company documents with an ASIC form not lodged yet, each with its current status,
 * and following the firm's changes (a new status, a form lodged, a new one, one deleted).
 */
import { describe, expect, it } from 'vitest';
import type { StateDump } from '../../src/simulator/index.js';
import { SIM_PROFILES } from '../../src/simulator/profile.js';
import { type Session, useSimulators } from './sim-fixture.js';

const start = useSimulators();

const unlodged = (dump: StateDump) =>
  dump.documents.filter(
    (d) => d.owner.kind === 'company' && d.asicDocNumber !== null && d.status.type !== 'LODGED',
  );

/** Every page of the list, as a client pages it: 500 at a time until `total`. */
async function readAll(session: Session, prefix: string) {
  const items: any[] = [];
  const totals: number[] = [];
  for (let offset = 0; ; ) {
    const { status, body } = await session.json(
      'GET',
      `${prefix}/companies/documents/unlodged?offset=${offset}&limit=500`,
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ offset, limit: 500, total: expect.any(Number) });
    expect(body.documents.length).toBeLessThanOrEqual(500);
    items.push(...body.documents);
    totals.push(body.total);
    offset += body.documents.length;
    if (body.documents.length === 0 || offset >= body.total) break;
  }
  return { items, totals };
}

describe.each(SIM_PROFILES)('the firm-wide unlodged list (--profile %s)', (profile) => {
  it('pages every unlodged company document exactly once, with and without /cas', async () => {
    const session = await start({
      profile,
      seed: { companies: 60, trusts: 20, documentsPerEntity: 40, attachmentsPerDocument: 0 },
    });
    const expected = unlodged(await session.sim.admin.dump());
    expect(expected.length).toBeGreaterThan(500); // more than one page
    for (const prefix of ['/cas', '']) {
      const { items, totals } = await readAll(session, prefix);
      expect(totals.length).toBeGreaterThan(1);
      expect(new Set(totals)).toEqual(new Set([expected.length]));
      expect(items.map((i) => String(i.id))).toEqual(expected.map((d) => d.id));
      for (const [i, item] of items.entries()) {
        expect(item.status).toEqual(expected[i]!.status);
        expect(item.company.id).toBe(expected[i]!.owner.id);
      }
    }
    const tooMany = await session.json(
      'GET',
      '/cas/companies/documents/unlodged?offset=0&limit=501',
    );
    expect(tooMany.status).toBe(400);
    const noOffset = await session.json('GET', '/cas/companies/documents/unlodged?limit=50');
    expect(noOffset.status).toBe(400);
  });

  it('shows a new status, drops a form once lodged or deleted, and lists a new form', async () => {
    const session = await start({
      profile,
      seed: { companies: 10, trusts: 5, documentsPerEntity: 6, attachmentsPerDocument: 0 },
    });
    const { admin } = session.sim;
    const [restatus, lodge, remove] = unlodged(await admin.dump());
    const status = admin.assignStatus(restatus!.id, { typeId: 3 });
    admin.assignStatus(lodge!.id, { typeId: 21 });
    admin.deleteDocument(remove!.id);
    const company = { kind: 'company' as const, id: restatus!.owner.id };
    const form = admin.createDocument({ owner: company, name: 'Form 484', asicDocNumber: '2E99' });
    const trust = (await admin.dump()).trusts[0]!;
    admin.createDocument({
      owner: { kind: 'trust', id: String(trust.id) },
      name: 'Trust form',
      asicDocNumber: '2E98',
    });

    const { items } = await readAll(session, '/cas');
    const byId = new Map(items.map((i) => [String(i.id), i]));
    expect(byId.get(restatus!.id)?.status).toMatchObject({ id: status.id, type: 'SENT TO CLIENT' });
    expect(byId.has(lodge!.id)).toBe(false);
    expect(byId.has(remove!.id)).toBe(false);
    expect(byId.get(String(form.id))?.status).toMatchObject({ type: 'RECEIVED' });
    expect(items.map((i) => String(i.id))).toEqual(unlodged(await admin.dump()).map((d) => d.id));
  });
});
