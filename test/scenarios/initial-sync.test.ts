/**
 * The first sync of a store (daemon.md "Sync rules"): pull-only, so a folder that matches
 * nothing is reported, not uploaded, unless `--adopt-local`; a firm's existing entity folders
 * are adopted (companies by ACN, trusts by ABN, then by name) instead of getting a second one.
 */
import { describe, expect, it } from 'vitest';
import type { OwnerRef } from '../../src/domain/types.js';
import { runCycle } from '../../src/engine/run-cycle.js';
import type { RemoteStore } from '../../src/remote/remote-store.js';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

/** An empty firm with Acme (ACN 123 456 789), and the firm's own folder for it, never synced. */
async function firmWithOldFolders() {
  const h = await start({ seed: null });
  const acme = h.sim.admin.createCompany({ name: 'Acme Pty Ltd', number: '123456789' });
  const doc = h.sim.admin.createDocument({
    owner: { kind: 'company', id: String(acme.id) },
    name: 'Annual Company Statement',
    documentDate: '2024-06-30',
  });
  h.sim.admin.addAttachment(String(doc.id), { name: 'statement.pdf', bytes: 'statement' });
  const acmeFolder = 'Companies/Acme Pty Ltd (123 456 789)';
  h.write(`${acmeFolder}/2019-03-04 Old Minutes/minutes.pdf`, 'old minutes');
  return {
    h,
    acme: { kind: 'company' as const, id: String(acme.id) },
    acmeFolder,
    docId: String(doc.id),
  };
}

const entityFolders = (tree: Map<string, string>, top: string) => [
  ...new Set([...tree.keys()].filter((r) => r.startsWith(`${top}/`)).map((r) => r.split('/')[1])),
];

describe('initial sync', () => {
  it('is pull-only: a folder matching nothing is reported and not uploaded', async () => {
    const { h, acme, acmeFolder, docId } = await firmWithOldFolders();

    const report = await h.sync();

    expect(report.result).toBe('ok');
    expect(report.unmatchedFolders).toEqual([`${acmeFolder}/2019-03-04 Old Minutes`]);
    expect((await h.remote()).documents.map((d) => d.name)).toEqual(['Annual Company Statement']);
    expect(h.writesToService()).toEqual({});
    // The firm's folder was adopted by its ACN: the document landed in it, no second folder.
    expect(h.state.entities.get(acme)).toMatchObject({ folder: acmeFolder, matchedBy: 'number' });
    expect(entityFolders(h.tree(), 'Companies')).toEqual(['Acme Pty Ltd (123 456 789)']);
    expect(h.documentFolder(docId)?.startsWith(`${acmeFolder}/`)).toBe(true);
    expect(h.read(`${acmeFolder}/2019-03-04 Old Minutes/minutes.pdf`).toString()).toBe(
      'old minutes',
    );
  });

  it('keeps a held folder held in later cycles, listed by status, until --adopt-local', async () => {
    const { h, acmeFolder } = await firmWithOldFolders();
    const held = `${acmeFolder}/2019-03-04 Old Minutes`;
    await h.sync();

    // Later cycles: still not uploaded, and `docsync status` names it with what to do.
    await h.sync();
    await h.sync({ fullReconcile: false });
    expect((await h.remote()).documents.map((d) => d.name)).toEqual(['Annual Company Statement']);
    expect(h.state.statusReport().unmatchedFolders).toEqual([
      expect.objectContaining({ folder: held, reason: expect.stringContaining('--adopt-local') }),
    ]);
    // A folder made after the first sync is an ordinary new document.
    h.write(`${acmeFolder}/2024-07-01 New Engagement/letter.pdf`, 'letter');
    await h.sync();
    expect((await h.remote()).documents.map((d) => d.name).sort()).toEqual([
      'Annual Company Statement',
      'New Engagement',
    ]);

    await h.sync({ adoptLocal: true });
    expect((await h.remote()).documents.map((d) => d.name).sort()).toEqual([
      'Annual Company Statement',
      'New Engagement',
      'Old Minutes',
    ]);
    expect(h.state.statusReport().unmatchedFolders).toEqual([]);
  });

  it('with --adopt-local uploads the unmatched folder as a new document', async () => {
    const { h, acme, acmeFolder } = await firmWithOldFolders();

    const report = await h.sync({ adoptLocal: true });

    expect(report.unmatchedFolders).toEqual([]);
    const old = (await h.remote()).documents.find((d) => d.name === 'Old Minutes');
    expect(old).toMatchObject({ owner: acme, documentDate: '2019-03-04' });
    expect(old!.attachments.map((a) => a.sha256)).toEqual([sha256('old minutes')]);
    expect(h.documentFolder(old!.id)).toBe(`${acmeFolder}/2019-03-04 Old Minutes`);
    await expectInSync(h);
    await expectQuiet(h);
  });

  it('adopts a company folder by ACN even under another name', async () => {
    const h = await start({ seed: null });
    const acme = h.sim.admin.createCompany({ name: 'Acme Pty Ltd', number: '123456789' });
    h.write('Companies/ACME old name (123 456 789)/notes.txt', 'firm notes');

    await h.sync();

    const owner = { kind: 'company' as const, id: String(acme.id) };
    expect(h.state.entities.get(owner)?.folder).toBe('Companies/ACME old name (123 456 789)');
    expect(entityFolders(h.tree(), 'Companies')).toEqual(['ACME old name (123 456 789)']);
    expect(h.exists('Companies/ACME old name (123 456 789)/.entity.json')).toBe(true);
  });

  it('writes each company with its details into .entity.json, as daemon.md promises', async () => {
    const h = await start({ seed: null });
    // The firm's first label (seed-base.ts): "Annual review", id 11.
    const acme = h.sim.admin.createCompany({
      name: 'Acme Pty Ltd',
      number: '123456789',
      labelIds: [11],
      superFundContactIds: [9001, 9002],
    });

    await h.sync();

    const meta = JSON.parse(h.read('Companies/Acme Pty Ltd (123 456 789)/.entity.json').toString());
    expect(meta).toMatchObject({ kind: 'company', id: String(acme.id), name: 'Acme Pty Ltd' });
    // The company as the service gives it with details=true, whole.
    expect(meta.entity).toEqual(acme);
    expect(meta.entity.details).toMatchObject({
      clientNumber: expect.stringMatching(/^C\d{5}$/),
      labels: ['Annual review'],
      superFundContactIds: [9001, 9002],
    });
    // A quiet cycle leaves it as it is.
    await expectQuiet(h);
  });

  it('adopts trust folders by ABN, then by name', async () => {
    const h = await start({ seed: null });
    const smith = h.sim.admin.createTrust({ name: 'Smith Family Trust' });
    const jones = h.sim.admin.createTrust({ name: 'Jones Family Trust', abn: null });
    const abn = String(smith.abn);
    const spaced = `${abn.slice(0, 2)} ${abn.slice(2, 5)} ${abn.slice(5, 8)} ${abn.slice(8)}`;
    h.write(`Trusts/Smith Trust (${spaced})/deed.pdf`, 'deed');
    h.write('Trusts/jones family trust/deed.pdf', 'deed');

    await h.sync();

    expect(h.state.entities.get({ kind: 'trust', id: String(smith.id) })).toMatchObject({
      folder: `Trusts/Smith Trust (${spaced})`,
      matchedBy: 'abn',
    });
    expect(h.state.entities.get({ kind: 'trust', id: String(jones.id) })).toMatchObject({
      folder: 'Trusts/jones family trust',
      matchedBy: 'name',
    });
    expect(entityFolders(h.tree(), 'Trusts').sort()).toEqual(
      [`Smith Trust (${spaced})`, 'jones family trust'].sort(),
    );
  });

  it('lists an entity folder that matches no company or trust', async () => {
    const h = await start({ seed: null });
    h.sim.admin.createCompany({ name: 'Acme Pty Ltd', number: '123456789' });
    h.write('Companies/Gone Pty Ltd (987 654 321)/notes.txt', 'notes');

    await h.sync();

    expect(h.state.entities.listUnmatchedFolders().map((f) => f.folder)).toEqual([
      'Companies/Gone Pty Ltd (987 654 321)',
    ]);
    expect(h.writesToService()).toEqual({});
  });

  it('ends though a status typed meanwhile is one the service does not know (seed 2350)', async () => {
    const { h, acme, acmeFolder, docId } = await firmWithOldFolders();
    // Acme's sync alone: the first sync goes on, as after a round where another entity failed.
    await h.sync({ owners: [acme] });
    expect(h.state.settings.initialSyncDone()).toBe(false);
    const folder = h.documentFolder(docId)!;
    h.editMeta(folder, (meta) => ({ ...meta, status: 'Awaiting Partner Signoff' }));

    const report = await h.sync();

    // The first sync has ended, though the typed status is the person's to correct: in error,
    // and kept in the file (rows 25, 29).
    expect(h.state.settings.initialSyncDone()).toBe(true);
    expect(report).toMatchObject({ result: 'partial', documentsFailed: 1, documentsToCorrect: 1 });
    expect(h.meta(folder).status).toBe('Awaiting Partner Signoff');
    expect(h.state.problems.list().map((p) => p.documentId)).toEqual([docId]);
    // A folder made since is a new document.
    h.write(`${acmeFolder}/2024-07-01 New Engagement/letter.pdf`, 'letter');
    await h.sync();
    const names = (await h.remote()).documents.map((d) => d.name).sort();
    expect(names).toEqual(['Annual Company Statement', 'New Engagement']);
  });

  it('lands files while the rest of the firm is still being listed', async () => {
    const firm = { companies: 4, trusts: 4, documentsPerEntity: 2, attachmentsPerDocument: 1 };
    const h = await start({ seed: { ...firm, seed: 5 }, settings: { concurrency: 2 } });
    const filesAtEachListing: number[] = [];
    const remote: RemoteStore = Object.create(h.deps.remote, {
      documentVersions: {
        value: (owner: OwnerRef, options?: { updatedAfter?: string }) => {
          filesAtEachListing.push([...h.tree().keys()].filter((p) => p.endsWith('.pdf')).length);
          return h.deps.remote.documentVersions(owner, options);
        },
      },
    });

    const report = await runCycle({ ...h.deps, remote }, { trigger: 'once', fullReconcile: true });

    expect(report.result).toBe('ok');
    expect(filesAtEachListing).toHaveLength(8);
    // Planning every entity before running any would have listed all eight on an empty folder.
    expect(filesAtEachListing.at(-1)).toBeGreaterThan(0);
    await expectInSync(h);
  });
});
