/**
 * Names from the service are shown as they are, stored safely (issue 33, case 5), through
 * `docsync run --once` against the simulator: a right-to-left override (or any other invisible
 * format character) in a company's, a document's or an attachment's name is replaced in the
 * local name; `Résumé.pdf` goes up and comes back as `Résumé.pdf`; and a service that stores an
 * upload under another name is named in a warning, without an upload again or a second file.
 */
import { describe, expect, it } from 'vitest';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

const RLO = '\u202E';
const INVISIBLE = /[\p{Cf}]/u;

const uploads = (requests: Record<string, number>) =>
  Object.entries(requests)
    .filter(([route]) => /^POST .*\/attachments/.test(route))
    .reduce((n, [, count]) => n + count, 0);

describe('case 5: names from the service', () => {
  it('a right-to-left override in a service name never reaches a local name', async () => {
    const h = await start({ seed: null });
    const company = h.sim.admin.createCompany({ name: `Acme${RLO}dtL ytP` });
    const owner = { kind: 'company' as const, id: String(company.id) };
    const doc = h.sim.admin.createDocument({
      owner,
      name: `Invoice${RLO}fdp.exe`,
      documentDate: '2024-06-30',
    });
    h.sim.admin.addAttachment(doc.id, { name: `scan\u2066${RLO}fdp.exe`, bytes: 'MZ not a pdf' });

    const run = await h.cli(['run', '--once']);

    expect(run.code, run.stderr).toBe(0);
    const paths = [...h.tree().keys()];
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => INVISIBLE.test(p))).toEqual([]);
    const file = paths.find((p) => p.endsWith('/scan__fdp.exe'));
    expect(file).toMatch(
      /^Companies\/Acme_dtL ytP \([\d ]+\)\/2024-06-30 Invoice_fdp\.exe \[\d+\]\/scan__fdp\.exe$/,
    );
    // Shown as it is where a name is data, not a name in the folder.
    expect(h.meta(file!.slice(0, file!.lastIndexOf('/'))).name).toBe(`Invoice${RLO}fdp.exe`);
    // The service keeps its names as they are.
    const held = (await h.remoteDoc(String(doc.id)))!;
    expect(held.name).toBe(`Invoice${RLO}fdp.exe`);
  });

  it('Résumé.pdf goes up as Résumé.pdf, and is not sent again', async () => {
    const h = await start();
    expect((await h.sync()).result).toBe('ok');
    const id = (await h.remote()).documents[0]!.id;
    const folder = h.documentFolder(id)!;
    h.write(`${folder}/Résumé.pdf`, '%PDF-1.4 curriculum vitae');

    const first = await h.cli(['run', '--once']);

    expect(first.code, first.stderr).toBe(0);
    const names = (await h.remoteDoc(id))!.attachments.map((a) => a.name);
    expect(names).toContain('Résumé.pdf');
    h.resetCounters();
    const second = await h.cli(['run', '--once']);
    expect(second.code, second.stderr).toBe(0);
    expect(uploads(h.requests())).toBe(0);
    expect([...h.tree().keys()].filter((p) => p.includes('sum'))).toEqual([`${folder}/Résumé.pdf`]);
  });

  it('a service that stores the upload under another name is named in a warning; nothing loops', async () => {
    const h = await start();
    expect((await h.sync()).result).toBe('ok');
    const id = (await h.remote()).documents[0]!.id;
    const folder = h.documentFolder(id)!;
    h.sim.admin.setFaults({ latin1UploadNames: true });
    h.write(`${folder}/Résumé.pdf`, '%PDF-1.4 curriculum vitae');

    const first = await h.cli(['run', '--once'], { log: { level: 'info' } });

    expect(first.code, first.stderr).toBe(0);
    expect((await h.remoteDoc(id))!.attachments.map((a) => a.name)).toContain('RÃ©sumÃ©.pdf');
    const warned = first.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; stored?: string })
      .filter((l) => l.stored !== undefined);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.level).toBe(40);
    expect(warned[0]!.msg).toContain(
      'uploaded "Résumé.pdf", but the service stored it as "RÃ©sumÃ©.pdf"',
    );

    h.resetCounters();
    const second = await h.cli(['run', '--once']);
    expect(second.code, second.stderr).toBe(0);
    expect(uploads(h.requests())).toBe(0);
    // One file in the folder for the one attachment, under the name the person gave it.
    expect([...h.tree().keys()].filter((p) => p.includes('sum'))).toEqual([`${folder}/Résumé.pdf`]);
  });
});
