/**
 * A content replace is two requests, upload then delete (daemon.md), kept as one outbox entry
 * (issue 15, case 3): `docsync run --once` in a child process is killed in the gap between them,
 * then run again. The service must end with the new content only, the folder without a
 * `name (2)` copy of the old one, and the old service copy in the trash.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runOnceKilledWhen, uploadsServed } from '../helpers/killed-run.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

describe('case 3: a crash between the two steps of a content replace', () => {
  it('resumes at the delete: one attachment with the new content, no "(2)" copy, the old one in the trash', async () => {
    const h = await start();
    const [company] = await h.owners();
    const doc = h.sim.admin.createDocument({ owner: company!, name: 'Engagement Letter' });
    const id = String(doc.id);
    const old = h.sim.admin.addAttachment(id, { name: 'letter.pdf', bytes: 'letter v1' });
    expect((await h.sync()).result).toBe('ok');
    const folder = h.documentFolder(id)!;
    h.write(`${folder}/letter.pdf`, 'letter v2, signed');
    const config = writeCliConfig(h.root.slice(0, -'/documents'.length), h.sim, {
      settleSeconds: 0,
      queue: { requestsPerSecond: 1000, concurrency: 4 },
      log: { level: 'error' },
    });

    // Every answer takes 300 ms, so the kill lands while the step after the upload waits.
    h.sim.admin.setFaults({ latencyMs: 300 });
    h.resetCounters();
    const killed = await runOnceKilledWhen(h, config, () => uploadsServed(h) > 0);
    h.sim.admin.setFaults({});
    expect(killed.killed, killed.stderr).toBe(true);
    expect((await h.remoteDoc(id))!.attachments.map((a) => a.name).sort()).toEqual([
      'letter.pdf',
      'letter.pdf',
    ]);

    const { code, stderr } = await h.cli(['run', '--once']);

    expect(code, stderr).toBe(0);
    const attachments = (await h.remoteDoc(id))!.attachments;
    expect(attachments.map((a) => [a.name, a.sha256])).toEqual([
      ['letter.pdf', sha256('letter v2, signed')],
    ]);
    expect(attachments[0]!.id).not.toBe(old.id);
    expect([...h.tree().keys()].filter((p) => p.startsWith(`${folder}/`)).sort()).toEqual([
      `${folder}/.document.json`,
      `${folder}/letter.pdf`,
    ]);
    expect([...h.trash().values()]).toContain(sha256('letter v1'));
    await expectInSync(h);
    // A real process, killed, then a second run: room for a busy machine, as the crash test has.
  }, 90_000);

  it("a replace left in doubt before its upload is not taken for a colleague's file of the same name", async () => {
    const h = await start();
    const [company] = await h.owners();
    const doc = h.sim.admin.createDocument({ owner: company!, name: 'Engagement Letter' });
    const id = String(doc.id);
    const old = h.sim.admin.addAttachment(id, { name: 'letter.pdf', bytes: 'letter v1' });
    expect((await h.sync()).result).toBe('ok');
    const folder = h.documentFolder(id)!;
    const ours = 'letter v2, from the folder';
    h.write(`${folder}/letter.pdf`, ours);
    // A run was killed after marking the replace sent and before the upload left.
    const stat = statSync(path.join(h.root, folder, 'letter.pdf'));
    const sent = h.state.outbox.record({
      kind: 'replace-attachment',
      owner: company!,
      documentId: id,
      payload: {
        fileName: 'letter.pdf',
        sha256: sha256(ours),
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        replacesAttachmentId: old.id,
      },
    });
    h.state.outbox.markSent(sent);
    // Meanwhile a colleague replaced the same file in the service.
    h.sim.admin.deleteAttachment(id, old.id);
    h.sim.admin.addAttachment(id, { name: 'letter.pdf', bytes: 'letter v3, from the service' });

    for (let i = 0; i < 3 && (await h.sync()).actions > 0; i++);

    const remote = (await h.remoteDoc(id))!.attachments.map((a) => a.sha256);
    expect(remote).toContain(sha256(ours));
    expect(remote).toContain(sha256('letter v3, from the service'));
    await expectInSync(h);
    expect(h.state.outbox.counts()).toEqual({ pending: 0, sent: 0, failed: 0 });
  });
});
