import { describe, expect, it } from 'vitest';
import { useSimulators } from './sim-fixture.js';

const start = useSimulators();
const FIRM = {
  seed: { companies: 2, trusts: 1, documentsPerEntity: 2, attachmentsPerDocument: 1 },
};

describe('simulator: answers lost after the write', () => {
  it('carries out a create, then answers 5xx or resets: the document is there all the same', async () => {
    const session = await start(FIRM);
    const company = (await session.sim.admin.dump()).companies[0]!;
    session.sim.admin.setFaults({ lostAnswer: 1, seed: 7 });
    const outcomes: string[] = [];
    for (const name of ['Lost 1', 'Lost 2', 'Lost 3', 'Lost 4']) {
      const answer = await session
        .call('POST', `/cas/companies/${company.id}/documents`, {
          name,
          documentDate: '2030-01-07',
        })
        .then((r) => String(r.status))
        .catch(() => 'reset');
      outcomes.push(answer);
    }
    // Never a success, sometimes a 5xx and sometimes no answer at all.
    expect(outcomes.every((o) => ['500', '502', '503', 'reset'].includes(o))).toBe(true);
    expect(new Set(outcomes.map((o) => (o === 'reset' ? o : '5xx'))).size).toBe(2);
    const names = (await session.sim.admin.dump()).documents.map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(['Lost 1', 'Lost 2', 'Lost 3', 'Lost 4']));
    expect(session.sim.admin.lostAnswers()).toBe(4);
  });

  it('loses the answer of the next write to one route once, whatever the faults say', async () => {
    const session = await start(FIRM);
    const doc = (await session.sim.admin.dump()).documents[0]!;
    const base = `/cas/${doc.owner.kind === 'company' ? 'companies' : 'trusts'}/${doc.owner.id}/documents`;
    session.sim.admin.loseNextAnswer('POST', '/documents/{documentId}/statuses');
    session.sim.admin.setFaults({});
    const created = await session.call('POST', base, { name: 'Fine', documentDate: '2030-01-07' });
    expect(created.status).toBe(201);
    const assign = (typeId: number) =>
      session
        .call('POST', `${base}/${doc.id}/statuses`, { typeId, effectiveDate: '2030-01-07' })
        .then((r) => r.status)
        .catch(() => 0);
    expect([0, 500, 502, 503]).toContain(await assign(3));
    const carried = (await session.sim.admin.dump()).documents.find((d) => d.id === doc.id)!;
    expect(carried.status.type).toBe('SENT TO CLIENT');
    expect(await assign(2)).toBe(201);
    expect(session.sim.admin.lostAnswers()).toBe(1);
  });

  it('loses no read and no refusal: only a write the service carried out', async () => {
    const session = await start(FIRM);
    const company = (await session.sim.admin.dump()).companies[0]!;
    session.sim.admin.setFaults({ lostAnswer: 1 });
    const list = await session.call(
      'GET',
      `/cas/companies/${company.id}/documents?offset=0&limit=9`,
    );
    expect(list.status).toBe(200);
    const refused = await session.call('POST', `/cas/companies/${company.id}/documents`, {
      documentDate: '2030-01-07',
    });
    expect(refused.status).toBe(422);
    expect(session.sim.admin.lostAnswers()).toBe(0);
  });
});

describe('simulator: the firm changed by its own users', () => {
  it('renames and re-dates a document, moving its change time', async () => {
    const session = await start(FIRM);
    const doc = (await session.sim.admin.dump()).documents[0]!;
    session.sim.admin.editDocument(doc.id, { name: 'Renamed', documentDate: '2021-03-04' });
    const after = (await session.sim.admin.dump()).documents.find((d) => d.id === doc.id)!;
    expect(after).toMatchObject({ name: 'Renamed', documentDate: '2021-03-04' });
    expect(after.lastUpdatedTimestamp > doc.lastUpdatedTimestamp).toBe(true);
  });

  it('leaves a document out of one listing of its owner, and only one', async () => {
    const session = await start(FIRM);
    const doc = (await session.sim.admin.dump()).documents[0]!;
    const list = async () =>
      (
        await session.json(
          'GET',
          `/cas/${doc.owner.kind === 'company' ? 'companies' : 'trusts'}/${doc.owner.id}/documents?offset=0&limit=9`,
        )
      ).body;
    session.sim.admin.skipInNextListing(doc.id);
    const first = await list();
    expect(first.documents.map((d: { id: string }) => String(d.id))).not.toContain(doc.id);
    expect(first.total).toBe(1);
    expect((await list()).documents.map((d: { id: string }) => String(d.id))).toContain(doc.id);
  });

  it('renames, deletes and enters again under a new id a company or a trust', async () => {
    const session = await start(FIRM);
    const before = await session.sim.admin.dump();
    const [renamed, deleted] = before.companies;
    const trust = before.trusts[0]!;
    session.sim.admin.renameEntity({ kind: 'company', id: renamed!.id }, 'New Name Pty Ltd');
    session.sim.admin.renameEntity({ kind: 'trust', id: String(trust.id) }, 'New Family Trust');
    session.sim.admin.deleteEntity({ kind: 'company', id: deleted!.id });
    const next = session.sim.admin.renumberEntity({ kind: 'trust', id: String(trust.id) });
    const after = await session.sim.admin.dump();
    expect(after.companies.map((c) => [c.id, c.name])).toEqual([[renamed!.id, 'New Name Pty Ltd']]);
    expect(after.trusts.map((t) => [String(t.id), t.name, t.abn])).toEqual([
      [next.owner.id, 'New Family Trust', trust.abn],
    ]);
    // The old trust's documents are made again under the new one: new ids, the same content.
    const old = before.documents.filter((d) => d.owner.id === String(trust.id));
    const made = after.documents.filter((d) => d.owner.id === next.owner.id);
    expect(made.map((d) => d.id)).toEqual(next.documentIds);
    expect(made.map((d) => [d.name, d.attachments.map((a) => a.sha256)])).toEqual(
      old.map((d) => [d.name, d.attachments.map((a) => a.sha256)]),
    );
    expect(after.documents.some((d) => old.some((o) => o.id === d.id))).toBe(false);
    expect(after.documents.some((d) => d.owner.id === deleted!.id)).toBe(false);
    expect(
      (await session.call('GET', `/cas/companies/${deleted!.id}/documents?offset=0&limit=9`))
        .status,
    ).toBe(404);
  });

  it('takes a status type out of the catalogue: assigning it is refused, documents keep theirs', async () => {
    const session = await start(FIRM);
    const doc = (await session.sim.admin.dump()).documents[0]!;
    session.sim.admin.assignStatus(doc.id, { typeId: 3 });
    session.sim.admin.removeStatusType(3);
    const types = (await session.json('GET', '/cas/documents/statusTypes')).body.statusTypes;
    expect(types.map((t: { id: number }) => t.id)).not.toContain(3);
    const kind = doc.owner.kind === 'company' ? 'companies' : 'trusts';
    const refused = await session.call(
      'POST',
      `/cas/${kind}/${doc.owner.id}/documents/${doc.id}/statuses`,
      { typeId: 3, effectiveDate: '2030-01-07' },
    );
    expect(refused.status).toBe(422);
    const after = (await session.sim.admin.dump()).documents.find((d) => d.id === doc.id)!;
    expect(after.status.type).toBe('SENT TO CLIENT');
  });
});
