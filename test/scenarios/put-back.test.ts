/**
 * What a person puts back while docsync deletes it in the service, with the real engine, folder,
 * state and simulator (the daemon's cases are test/integration/daemon-put-back.test.ts): a file
 * put back while its attachment's delete is under way, and a folder put back after its delete
 * went out, created again from the folder, also when a crash cuts that create in the middle.
 */
import { renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCycle } from '../../src/engine/run-cycle.js';
import { onceBefore } from '../helpers/seams.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

async function synced() {
  const h = await start();
  const [company] = await h.owners();
  const doc = h.sim.admin.createDocument({ owner: company!, name: 'Solvency Resolution' });
  const id = String(doc.id);
  h.sim.admin.addAttachment(id, { name: 'resolution.pdf', bytes: 'resolution v1' });
  h.sim.admin.addAttachment(id, { name: 'minutes.pdf', bytes: 'minutes v1' });
  await h.sync();
  const folder = h.documentFolder(id)!;
  h.resetCounters();
  return { h, id, folder, company: company! };
}

describe('put back while docsync deletes it in the service', () => {
  it('a file put back while its attachment is copied to the trash: not deleted in the service', async () => {
    const { h, id, folder } = await synced();
    const file = path.join(h.root, folder, 'minutes.pdf');
    const away = `${h.root}-minutes.pdf`;
    renameSync(file, away);

    // The service's copy is on its way to the trash; meanwhile the person puts the file back.
    const remote = onceBefore(h.deps.remote, 'downloadAttachment', () => renameSync(away, file));
    await runCycle({ ...h.deps, remote }, { trigger: 'once', fullReconcile: true });
    expect(remote.fired()).toBe(true);

    expect((await h.remoteDoc(id))!.attachments.map((a) => a.sha256)).toContain(
      sha256('minutes v1'),
    );
    expect(h.writesToService()).toEqual({});
    await h.sync();
    expect(h.writesToService()).toEqual({});
    await expectInSync(h);
  });
});
