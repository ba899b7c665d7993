import { createHash } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OwnerRef, RemoteDocumentSummary } from '../../src/domain/types.js';
import { namedUploadSource } from '../../src/local/upload-file.js';
import { ApiError } from '../../src/remote/api-error.js';
import type { DocumentListEntry } from '../../src/remote/service-client.js';
import { collect, collectRead, useRemote } from '../helpers/remote.js';
import { useTempDir } from '../helpers/temp-dir.js';

const start = useRemote();
const tempDir = useTempDir();

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const wellFormed = (entries: DocumentListEntry[]) =>
  entries.filter((e): e is RemoteDocumentSummary => !('malformed' in e));

describe('API client against the simulator: every operation', () => {
  it('lists and reads companies, trusts, relationships, status types and contacts', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const { client } = remote;
    const dump = await sim.admin.dump();

    const companies = await collectRead(client.companies({ details: true }));
    expect(companies.map((c) => c.id).sort()).toEqual(
      dump.companies.map((c) => String(c.id)).sort(),
    );
    expect(companies[0]!.number).toMatch(/^\d{9}$/);
    const company = await client.company(companies[0]!.id);
    expect(company).toMatchObject({
      kind: 'company',
      id: companies[0]!.id,
      name: companies[0]!.name,
    });

    const trusts = await collectRead(client.trusts());
    expect(trusts.map((t) => t.id).sort()).toEqual(dump.trusts.map((t) => String(t.id)).sort());
    expect(trusts.some((t) => t.abn === null)).toBe(true);
    expect(await client.trust(trusts[0]!.id)).toMatchObject({ kind: 'trust', id: trusts[0]!.id });

    const current = await collect(client.trustRelationships(trusts[0]!.id));
    const withHistory = await collect(
      client.trustRelationships(trusts[0]!.id, { includeHistory: true }),
    );
    expect(withHistory.length).toBeGreaterThanOrEqual(current.length);
    expect(typeof withHistory[0]?.id).toBe('string');

    const types = await client.statusTypes();
    expect(types).toContainEqual({ id: '2', name: 'DOCUMENT PREPARED' });

    const contacts = await collect(client.contacts({ details: true }));
    expect(contacts.length).toBe(dump.contacts.length);
    const contact = await client.contact(String(contacts[0]!.id), { details: true });
    expect(contact.id).toBe(contacts[0]!.id);
  });

  it('pages a long document list to the end and filters strictly by updatedAfter', async () => {
    const { sim, remote } = await start({
      seed: { companies: 1, trusts: 0, documentsPerEntity: 1201, attachmentsPerDocument: 0 },
    });
    const [company] = (await sim.admin.dump()).companies;
    const owner: OwnerRef = { kind: 'company', id: String(company!.id) };

    const all = wellFormed(await collect(remote.client.documents(owner)));
    expect(all).toHaveLength(1201);
    expect(new Set(all.map((d) => d.id)).size).toBe(1201);
    const pages = sim.admin.counters().api.byRoute;
    expect(Object.entries(pages).find(([k]) => k.startsWith('GET /companies/'))?.[1]).toBe(3);

    const newest = all
      .map((d) => d.lastUpdatedTimestamp ?? '')
      .sort()
      .at(-1)!;
    const cursor = newest.slice(0, 19);
    const changed = sim.admin.createDocument({ owner, name: 'Late arrival' });
    const after = wellFormed(
      await collect(remote.client.documents(owner, { updatedAfter: cursor })),
    );
    expect(after.map((d) => d.id)).toContain(String(changed.id));
    expect(after.every((d) => (d.lastUpdatedTimestamp ?? '') > cursor)).toBe(true);
  });

  it('creates a document, assigns a status, uploads, downloads and deletes attachments, deletes it', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const { client } = remote;
    const trust = (await collectRead(client.trusts()))[0]!;
    const owner: OwnerRef = { kind: 'trust', id: trust.id };

    const created = await client.createDocument(owner, {
      name: 'Trust deed',
      documentDate: '2026-11-01',
    });
    expect(created).toMatchObject({ owner, name: 'Trust deed', documentDate: '2026-11-01' });
    expect(created.status?.type).toBe('RECEIVED');

    const status = await client.assignStatus(owner, created.id, '2', '2026-11-02');
    expect(status).toMatchObject({
      typeId: '2',
      type: 'DOCUMENT PREPARED',
      effectiveDate: '2026-11-02',
    });

    const dir = tempDir();
    const source = path.join(dir, 'deed.pdf');
    writeFileSync(source, '%PDF-1.4 a trust deed\n'.repeat(1000));
    const attachment = await client.uploadAttachment(
      owner,
      created.id,
      namedUploadSource(source),
      'Trust deed.pdf',
    );
    expect(attachment).toMatchObject({ kind: 'user', name: 'Trust deed.pdf' });
    expect(attachment.id).toMatch(/^UA/);

    const dest = path.join(dir, 'downloaded.pdf');
    const result = await client.downloadAttachment(owner, created.id, attachment.id, dest);
    expect(result.sha256).toBe(sha256(readFileSync(source)));
    expect(readFileSync(dest).equals(readFileSync(source))).toBe(true);

    const details = await client.document(owner, created.id);
    expect(details.status?.id).toBe(status.id);
    expect(details.attachments.map((a) => a.id)).toEqual([attachment.id]);

    await client.deleteAttachment(owner, created.id, attachment.id);
    expect((await client.document(owner, created.id)).attachments).toEqual([]);

    await client.deleteDocument(owner, created.id);
    const gone = await client.document(owner, created.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ApiError);
    expect((gone as ApiError).status).toBe(404);
    expect((await sim.admin.dump()).documents.some((d) => d.id === created.id)).toBe(false);
  });

  it('downloads system attachments too, but the service refuses to delete them', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const doc = (await sim.admin.dump()).documents.find((d) =>
      d.attachments.some((a) => a.kind === 'system'),
    )!;
    const system = doc.attachments.find((a) => a.kind === 'system')!;
    const dest = path.join(tempDir(), 'system.pdf');
    const result = await remote.client.downloadAttachment(doc.owner, doc.id, system.id, dest);
    expect(result.sha256).toBe(system.sha256);
    const refused = await remote.client
      .deleteAttachment(doc.owner, doc.id, system.id)
      .catch((e: unknown) => e);
    expect((refused as ApiError).status).toBe(403);
  });

  it('keeps nothing of a finished download: a first sync of 15,000 files held them all', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const files = (await sim.admin.dump()).documents
      .flatMap((d) => d.attachments.map((a) => ({ doc: d, attachment: a })))
      .slice(0, 12);
    expect(files.length).toBe(12);
    // What every request listens on for the daemon's stop: it lives as long as the daemon, and
    // whatever stays listening on it stays in memory with all it holds.
    const stop = remote.queue.cut;
    const before = getEventListeners(stop, 'abort').length;
    for (const [i, { doc, attachment }] of files.entries()) {
      const dest = path.join(tempDir(), `file-${i}.pdf`);
      const result = await remote.client.downloadAttachment(doc.owner, doc.id, attachment.id, dest);
      expect(result.sha256).toBe(attachment.sha256);
    }
    expect(getEventListeners(stop, 'abort').length).toBe(before);
  });

  it('lists unlodged documents, unit transactions (create, delete) and reads a pension summary', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const { client } = remote;
    const dump = await sim.admin.dump();
    const firmUnlodged = await collect(client.unlodged());
    expect(firmUnlodged.every((d) => d.owner.kind === 'company')).toBe(true);
    const companyId = String(dump.companies[0]!.id);
    const oneCompany = await collect(client.unlodged(companyId));
    expect(oneCompany.every((d) => d.owner.id === companyId)).toBe(true);

    const unitTrust = dump.trusts.find((t) => t.type === 'UNIT')!;
    const before = await collect(client.unitTransactions(String(unitTrust.id)));
    const made = await client.createUnitTransaction(String(unitTrust.id), {
      unitholderId: Number(dump.contacts[0]!.id),
      type: 'Allotment',
      transactionDate: '2026-07-01',
      numberOfUnits: 100,
      certificateType: 'None',
    });
    expect(typeof made.id).toBe('string');
    expect(await collect(client.unitTransactions(String(unitTrust.id)))).toHaveLength(
      before.length + 1,
    );
    await client.deleteUnitTransaction(String(unitTrust.id), String(made.id));
    expect(await collect(client.unitTransactions(String(unitTrust.id)))).toHaveLength(
      before.length,
    );

    const otherTrust = dump.trusts.find((t) => t.type !== 'UNIT')!;
    const conflict = await collect(client.unitTransactions(String(otherTrust.id))).catch(
      (e: unknown) => e,
    );
    expect((conflict as ApiError).status).toBe(409);

    const fund = dump.funds[0]!;
    const summary = await client.pensionSummary(String(fund.id), fund.financialYears.at(-1)!);
    expect(summary).toMatchObject({ fundId: String(fund.id), fundName: fund.name });
    const accounts = (summary.pensions as { accounts: Record<string, unknown>[] }[]).flatMap(
      (p) => p.accounts,
    );
    // The reversion fields of the contract are present on every account, set where reverted.
    expect(accounts.every((a) => 'reversionDate' in a && 'reversionAccountCode' in a)).toBe(true);
    expect(accounts.some((a) => a.reversionDate !== null)).toBe(true);
  });
});
