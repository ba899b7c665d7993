/**
 * `--once` finishes what it sees (issue 15, case 10): a file still inside the settle time when
 * its folder is scanned, and a conflict copy the run itself made, are synced by that same run
 * once they have settled, instead of an exit 0 ("in sync") with a file still waiting.
 */
import { describe, expect, it } from 'vitest';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const HOUR = 3_600_000;
const SETTLE = { settleSeconds: 2 };

describe('case 10: docsync run --once waits out the settle time', () => {
  it('uploads a file written just before the run, in that run', async () => {
    const h = await start();
    expect((await h.sync()).result).toBe('ok');
    const id = (await h.remote()).documents[0]!.id;
    h.write(`${h.documentFolder(id)!}/just saved.txt`, 'saved a moment ago');

    const { code, stderr } = await h.cli(['run', '--once'], SETTLE);

    expect(code, stderr).toBe(0);
    const names = (await h.remoteDoc(id))!.attachments.map((a) => [a.name, a.sha256]);
    expect(names).toContainEqual(['just saved.txt', sha256('saved a moment ago')]);
  });

  it('uploads the conflict copy it made, in the same run', async () => {
    const h = await start();
    const [company] = await h.owners();
    const doc = h.sim.admin.createDocument({ owner: company!, name: 'Solvency Resolution' });
    const id = String(doc.id);
    expect((await h.sync()).result).toBe('ok');
    const folder = h.documentFolder(id)!;
    // Row 42: the same name added on both sides, the service's newer: the local one becomes
    // the conflict copy, which the next cycle uploads.
    h.write(`${folder}/minutes.pdf`, 'folder minutes', Date.now() - HOUR);
    h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'service minutes' });
    // The folder's file has settled; the copy the run makes of it has not.
    await new Promise((resolve) => setTimeout(resolve, SETTLE.settleSeconds * 1000 + 100));

    const { code, stderr } = await h.cli(['run', '--once'], SETTLE);

    expect(code, stderr).toBe(0);
    const attachments = (await h.remoteDoc(id))!.attachments;
    const copy = attachments.find((a) => /^minutes \(conflict .*\)\.pdf$/.test(a.name));
    expect(copy?.sha256).toBe(sha256('folder minutes'));
  });
});
