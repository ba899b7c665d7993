/**
 * daemon.md's service action table, row by row: what happens in the service, and what the
 * folder shows after one cycle. Each ends in step, with a quiet second cycle.
 */
import { describe, expect, it } from 'vitest';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { type SyncHarness, sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

async function settled(h: SyncHarness) {
  await expectInSync(h);
  await expectQuiet(h);
}

/** A synced firm and one of its trust's documents with a user and a system attachment. */
async function synced(options: Parameters<typeof start>[0] = {}) {
  const h = await start(options);
  const [, trust] = await h.owners();
  const doc = h.sim.admin.createDocument({
    owner: trust!,
    name: 'Trust Deed',
    documentDate: '2023-05-02',
  });
  const id = String(doc.id);
  h.sim.admin.addAttachment(id, { name: 'deed.pdf', bytes: 'deed' });
  h.sim.admin.addAttachment(id, { name: 'Trust Deed.pdf', bytes: 'generated', system: true });
  expect((await h.sync()).result).toBe('ok');
  const folder = h.documentFolder(id)!;
  expect(folder).toBeDefined();
  return { h, trust: trust!, id, folder };
}

describe('service action table', () => {
  it('a new document becomes a folder with .document.json and every attachment, user and system', async () => {
    const h = await start();
    await h.sync();
    const [company] = await h.owners();
    const doc = h.sim.admin.createDocument({
      owner: company!,
      name: 'Form 484',
      documentDate: '2024-02-29',
      statusTypeId: 3,
    });
    const id = String(doc.id);
    h.sim.admin.addAttachment(id, { name: 'form.pdf', bytes: 'form' });
    h.sim.admin.addAttachment(id, { name: 'Form 484.pdf', bytes: 'asic copy', system: true });

    await h.sync();

    const folder = h.documentFolder(id)!;
    expect(folder).toBe(`${h.entityFolder(company!)}/2024-02-29 Form 484 [${id}]`);
    expect(h.meta(folder)).toMatchObject({
      id,
      name: 'Form 484',
      documentDate: '2024-02-29',
      status: 'SENT TO CLIENT',
    });
    expect(
      h
        .meta(folder)
        .attachments.map((a) => [a.file, a.kind])
        .sort(),
    ).toEqual([
      ['Form 484.pdf', 'system'],
      ['form.pdf', 'user'],
    ]);
    expect(h.read(`${folder}/form.pdf`).toString()).toBe('form');
    expect(h.read(`${folder}/Form 484.pdf`).toString()).toBe('asic copy');
    await settled(h);
  });

  it('a new status updates .document.json', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.assignStatus(id, { typeId: 21, effectiveDate: '2024-09-30' });

    await h.sync();

    expect(h.meta(folder)).toMatchObject({ status: 'LODGED', statusDate: '2024-09-30' });
    await settled(h);
  });

  it('a new attachment appears as a file', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.addAttachment(id, { name: 'variation.pdf', bytes: 'variation' });

    await h.sync();

    expect(h.read(`${folder}/variation.pdf`).toString()).toBe('variation');
    await settled(h);
  });

  it('a removed attachment moves its file to .docsync/trash/', async () => {
    const { h, id, folder } = await synced();
    const deed = (await h.remoteDoc(id))!.attachments.find((a) => a.name === 'deed.pdf')!;
    h.sim.admin.deleteAttachment(id, deed.id);

    await h.sync();

    expect(h.exists(`${folder}/deed.pdf`)).toBe(false);
    expect(h.trash().get(`${folder}/deed.pdf`)).toBe(sha256('deed'));
    await settled(h);
  });

  it('a deleted document moves its folder to .docsync/trash/', async () => {
    const { h, id, folder } = await synced();
    h.sim.admin.deleteDocument(id);

    expect((await h.sync()).result).toBe('ok');

    expect(h.exists(folder)).toBe(false);
    expect(h.trash().get(`${folder}/deed.pdf`)).toBe(sha256('deed'));
    expect(h.trash().get(`${folder}/Trust Deed.pdf`)).toBe(sha256('generated'));
    await settled(h);
  });

  it('with onRemoteDelete "delete", a deleted document is gone and the trash keeps nothing of it', async () => {
    const { h, id, folder } = await synced({ settings: { onRemoteDelete: 'delete' } });
    h.sim.admin.deleteDocument(id);

    expect((await h.sync()).result).toBe('ok');

    expect(h.exists(folder)).toBe(false);
    expect([...h.trash().keys()].filter((rel) => rel.startsWith(folder))).toEqual([]);
    await settled(h);
  });
});
