/**
 * Faults: a service that answers 5xx, drops connections, rate-limits and truncates downloads
 * still ends in step after a few cycles, without duplicates; a document that cannot be synced is
 * recorded as a problem while the rest of the cycle goes on, and `--once` then exits 3.
 */
import { describe, expect, it } from 'vitest';
import { expectInSync, expectQuiet } from '../helpers/sync-assertions.js';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

describe('faults', () => {
  it('cycles against a faulty service converge, with no duplicate documents or attachments', async () => {
    const h = await start({
      seed: { companies: 2, trusts: 2, documentsPerEntity: 3, attachmentsPerDocument: 2, seed: 5 },
    });
    await h.sync();
    const [company, , trust] = await h.owners();
    const dump = await h.remote();
    const docs = dump.documents;
    // Changes on both sides, so pushes, pulls and downloads all meet faults.
    for (const [i, doc] of docs.slice(0, 4).entries()) {
      h.write(`${h.documentFolder(doc.id)}/local ${i}.txt`, `local ${i}`);
      h.sim.admin.addAttachment(doc.id, { name: `remote ${i}.pdf`, bytes: `remote ${i}` });
    }
    h.editMeta(h.documentFolder(docs[5]!.id)!, (m) => ({ ...m, status: 'cancelled' }));
    h.write(`${h.entityFolder(company!)}/2024-05-06 New Engagement/letter.pdf`, 'letter');
    h.write(`${h.entityFolder(trust!)}/Minutes/minutes.pdf`, 'minutes');
    h.sim.admin.setFaults({
      serverError: 0.15,
      reset: 0.1,
      tooManyRequests: 0.02,
      truncatedDownload: 0.3,
      seed: 99,
    });

    let cycles = 0;
    for (; cycles < 12; cycles++) {
      const report = await h.sync().catch(() => null);
      if (report?.result === 'ok' && report.actions === 0) break;
    }
    h.sim.admin.setFaults({});

    expect(cycles).toBeLessThan(12);
    const after = await h.remote();
    expect(after.documents).toHaveLength(docs.length + 2);
    expect(after.documents.filter((d) => d.name === 'New Engagement')).toHaveLength(1);
    expect(after.documents.filter((d) => d.name === 'Minutes')).toHaveLength(1);
    for (const [i, doc] of docs.slice(0, 4).entries()) {
      const hashes = after.documents.find((d) => d.id === doc.id)!.attachments.map((a) => a.sha256);
      expect(hashes.filter((x) => x === sha256(`local ${i}`))).toHaveLength(1);
      expect(hashes.filter((x) => x === sha256(`remote ${i}`))).toHaveLength(1);
    }
    expect(after.documents.find((d) => d.id === docs[5]!.id)!.status?.type).toBe('CANCELLED');
    await expectInSync(h);
    await expectQuiet(h);
  });

  it('a malformed document is recorded as a problem, the rest of the cycle goes on, and --once exits 3', async () => {
    const h = await start();
    await h.sync();
    const [, trust] = await h.owners();
    const [broken, unknown, fine] = (await h.remote()).documents;
    const brokenFolder = h.documentFolder(broken!.id)!;
    h.write(`${brokenFolder}/.document.json`, '{ "id": "', Date.now());
    h.editMeta(h.documentFolder(unknown!.id)!, (m) => ({ ...m, status: 'NOT A STATUS' }));
    h.sim.admin.addAttachment(fine!.id, { name: 'later.pdf', bytes: 'later' });
    h.write(`${h.entityFolder(trust!)}/Fresh/fresh.pdf`, 'fresh');

    const { code } = await h.cli(['run', '--once']);

    expect(code).toBe(3);
    const problems = h.state.problems.list();
    expect(problems.map((p) => p.documentId ?? p.path).sort()).toEqual(
      [broken!.id, unknown!.id].sort(),
    );
    // The rest went on: the new attachment arrived, the new folder was uploaded.
    expect(h.read(`${h.documentFolder(fine!.id)}/later.pdf`).toString()).toBe('later');
    expect((await h.remote()).documents.some((d) => d.name === 'Fresh')).toBe(true);
    // The broken folder was left alone, never read as "deleted".
    expect(await h.remoteDoc(broken!.id)).toBeDefined();
    expect(h.read(`${brokenFolder}/.document.json`).toString()).toBe('{ "id": "');
  });
});
