/**
 * The `unlodged` lists follow the service's public item shape: the owner is read from the item's
 * `company` object (the public API has no `companyId`), and `lodgementDetails` reaches the
 * client's callers and `docsync api documents unlodged`.
 */
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { collect, useRemote } from '../helpers/remote.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const start = useRemote();
const tempDir = useTempDir();

async function firmWithFormsToLodge() {
  const fixture = await start({ seed: 'demo' });
  const { admin } = fixture.sim;
  const lodge = admin.createCompany({ name: 'Lodge Pty Ltd', number: '123456789' });
  const owner = { kind: 'company' as const, id: lodge.id };
  const pending = admin.createDocument({
    owner,
    name: 'Form 484',
    documentDate: '2026-03-02',
    asicDocNumber: '2E1234567',
    statusTypeId: 2,
  });
  admin.createDocument({ owner, name: 'Form 484 lodged', asicDocNumber: '2E7', statusTypeId: 21 });
  return { ...fixture, lodge, pendingId: String(pending.id) };
}

const expected = (companyId: string, id: string, webUrl: string) => ({
  id,
  owner: { kind: 'company', id: companyId },
  traceNumber: expect.any(String),
  asicDocNumber: '2E1234567',
  name: 'Form 484',
  documentDate: '2026-03-02',
  status: expect.objectContaining({ type: 'DOCUMENT PREPARED', typeId: '2' }),
  lodgementDetails: {
    lodgementDeadlineDate: '2026-03-30',
    preparedBy: expect.any(String),
    changesSummary: 'Change to company details',
    lodgementURL: `${webUrl}/s/html/main.html#/company/documents?cid=${companyId}`,
    electronic: true,
  },
  company: expect.objectContaining({ id: companyId, name: 'Lodge Pty Ltd', number: '123456789' }),
});

describe('unlodged documents', () => {
  it('names each item by its company, firm-wide and per company, with its lodgement details', async () => {
    const { sim, remote, lodge, pendingId } = await firmWithFormsToLodge();

    const firm = await collect(remote.client.unlodged());
    expect(firm.find((d) => d.id === pendingId)).toEqual(expected(lodge.id, pendingId, sim.webUrl));
    const forms = new Map((await sim.admin.dump()).documents.map((d) => [String(d.id), d]));
    for (const item of firm) expect(item.owner.id).toBe(String(forms.get(item.id)!.owner.id));

    const mine = await collect(remote.client.unlodged(lodge.id));
    expect(mine).toEqual([expected(lodge.id, pendingId, sim.webUrl)]);
  });

  it('prints the same items from `docsync api documents unlodged`', async () => {
    const { sim, lodge, pendingId } = await firmWithFormsToLodge();
    const config = writeCliConfig(tempDir(), sim);
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };

    const result = await runCli(['api', 'documents', 'unlodged', lodge.id, '--config', config], {
      env,
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([expected(lodge.id, pendingId, sim.webUrl)]);
  });
});
