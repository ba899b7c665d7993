/**
 * Issue 25, case 3, at the level a user reaches: a webhook's work is done only when the sync it
 * asked for succeeded. A `deleteDocument` whose sync fails (the company's document routes answer
 * with an error) is tried again, and once the service recovers the folder goes to the trash,
 * without waiting for the nightly full listing. The daemon is `docsync run`'s, in this process.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentFolderOf, firmInStep, HOOK, NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { postWebhook } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

describe('case 3: a deleteDocument webhook whose sync fails', () => {
  it('is tried again, and the folder goes to the trash once the service recovers', async () => {
    const dir = tempDir();
    const firm = await firmInStep(startSim, dir, {
      companies: 1,
      trusts: 1,
      documentsPerEntity: 2,
      attachmentsPerDocument: 1,
      seed: 4,
    });
    const { sim, root, env } = firm;
    // No round: only the webhook's own sync (and its retries) can apply the deletion. No sweep
    // of the unlodged list either: unthrottled, it would ask 50 times a second while the test
    // waits for the retry.
    const config = firm.config({ schedule: { ...NEVER, unlodgedSweepShare: 0 } });
    const daemon = startDaemon(config, env);
    await daemon.started;
    const hook = daemon.url('webhook receiver listening');
    await eventually(() => daemon.output().includes('poll round finished'));

    const doc = (await sim.admin.dump()).documents.find((d) => d.owner.kind === 'company')!;
    const {
      folder,
      entity: company,
      name: folderName,
    } = documentFolderOf(root, 'Companies', doc.id);
    // An answer the client does not retry, so the sync fails at once: a 503 fails it the same
    // way, after the client's retries (remote/retry-delay.ts), which only added 8 to 15 s here.
    sim.admin.setFaults({
      routes: {
        '/companies/{ownerId}/documents': 400,
        '/companies/{ownerId}/documents/{documentId}': 400,
      },
    });
    sim.admin.deleteDocument(doc.id);
    const sent = await postWebhook(
      hook,
      {
        entityId: doc.owner.id,
        eventId: 'deleted-while-down',
        eventType: 'documentChange',
        eventSubType: 'deleteDocument',
        firmId: 'firm-1',
        tenants: [{ tenantId: doc.id, tenantType: 'documentId' }],
        userId: 'someone',
      },
      HOOK,
    );
    expect(sent.status).toBe(200);
    await eventually(
      () => daemon.output().includes('sync failed; it is tried again after a wait'),
      30_000,
    );
    expect(existsSync(folder)).toBe(true);

    sim.admin.setFaults({});
    await eventually(() => !existsSync(folder), 30_000);
    const trash = path.join(root, '.docsync', 'trash');
    const trashed = readdirSync(trash).flatMap((day) =>
      readdirSync(path.join(trash, day, 'Companies', company)),
    );
    expect(trashed).toContain(folderName);
    // The event is done once its sync has ended.
    const pending = async () => {
      const status = await runCli(['status', '--json', '--config', config], { env });
      return (JSON.parse(status.stdout) as { pendingWebhookEvents: number }).pendingWebhookEvents;
    };
    await eventually(async () => (await pending()) === 0);
    expect(daemon.output()).toContain('webhook event failed; tried again later');
    await daemon.stop();
  }, 60_000);
});
