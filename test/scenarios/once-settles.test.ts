/**
 * `--once` finishes what it sees (issue 15, case 10): a file still inside the settle time when
 * its folder is scanned, and a conflict copy the run itself made, are synced by that same run
 * once they have settled, instead of an exit 0 ("in sync") with a file still waiting. The run
 * keeps time by a clock of the test's that moves on by each wait the run makes, so it waits out
 * the settle time without this machine sleeping through it.
 */
import { describe, expect, it } from 'vitest';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';
import { TestClock } from '../helpers/test-clock.js';

const start = useSyncHarness();
const HOUR = 3_600_000;
/**
 * Long, as a share a scanner writes to slowly may need: it costs the test nothing, and a file
 * written just before the run is still settling when the run scans it, however busy the machine.
 */
const SETTLE = { settleSeconds: 30 };
/** The run's wait: the settle time and a margin (run-until-settled.ts). */
const WAIT_MS = 30_250;

describe('case 10: docsync run --once waits out the settle time', () => {
  it('uploads a file written just before the run, in that run', async () => {
    const h = await start();
    expect((await h.sync()).result).toBe('ok');
    const id = (await h.remote()).documents[0]!.id;
    h.write(`${h.documentFolder(id)!}/just saved.txt`, 'saved a moment ago');
    const clock = new TestClock({ autoAdvance: true });

    const { code, stderr } = await h.cli(['run', '--once'], SETTLE, { clock });

    expect(code, stderr).toBe(0);
    expect(clock.waits, 'one wait, the settle time').toEqual([WAIT_MS]);
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
    // The folder's file has settled by the run's start; the copy the run makes of it has not.
    const clock = new TestClock({ autoAdvance: true });
    clock.advance(SETTLE.settleSeconds * 1000 + 100);

    const { code, stderr } = await h.cli(['run', '--once'], SETTLE, { clock });

    expect(code, stderr).toBe(0);
    expect(clock.waits, 'one wait, for the copy').toEqual([WAIT_MS]);
    const attachments = (await h.remoteDoc(id))!.attachments;
    const copy = attachments.find((a) => /^minutes \(conflict .*\)\.pdf$/.test(a.name));
    expect(copy?.sha256).toBe(sha256('folder minutes'));
  });
});
