/**
 * Per-item backoff, as the daemon meets it (issue 15, case 8): a document that failed is not
 * tried again by every cycle that passes, only once its backoff has ended, or at once when what
 * is planned for it changed (a new change on either side).
 */
import { mkdirSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { postWebhook } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

const FIRM = { companies: 1, trusts: 0, documentsPerEntity: 2, attachmentsPerDocument: 1, seed: 9 };

interface Status {
  itemsInError: { documentId: string | null; attempts: number; reason: string }[];
}

describe('per-item backoff in the daemon', () => {
  it('skips a failed document until its backoff ends, but retries at once when it changes', async () => {
    const sim = await startSim({ seed: FIRM, rateLimitPerSecond: 0 });
    const dir = tempDir();
    const config = writeCliConfig(dir, sim, {
      settleSeconds: 0,
      log: { level: 'debug' },
      schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
      webhook: { enabled: true, listen: '127.0.0.1:0', clientCode: 'FIRM1', secret: 's3cret' },
    });
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const daemon = startDaemon(config, env);
    await daemon.started;
    await eventually(() => /"msg":"first sync finished: /.test(daemon.output()));
    const hook = /"url":"([^"]+)","msg":"webhook receiver listening"/.exec(daemon.output())![1]!;
    const [doc] = (await sim.admin.dump()).documents;
    let events = 0;
    const changeOf = async () => {
      const eventId = `event-${++events}`;
      const body = {
        entityId: doc!.owner.id,
        eventId,
        eventType: 'documentChange',
        eventSubType: 'newAttachment',
        firmId: 'firm',
        tenants: [{ tenantId: doc!.id, tenantType: 'documentId' }],
        userId: 'someone',
      };
      expect(
        (await postWebhook(hook, body, { clientCode: 'FIRM1', secret: 's3cret' })).status,
      ).toBe(200);
      await eventually(() =>
        new RegExp(`"eventId":"${eventId}"[^\\n]*"msg":"webhook event done"`).test(daemon.output()),
      );
    };
    const attemptsOf = async () => {
      const { stdout } = await runCli(['status', '--json', '--config', config], { env });
      const item = (JSON.parse(stdout) as Status).itemsInError.find(
        (i) => i.documentId === doc!.id,
      );
      return item?.attempts ?? 0;
    };
    // Every download now fails: docsync's temp folder is a link it refuses to write through.
    const root = path.join(dir, 'documents');
    const outside = path.join(dir, 'elsewhere');
    mkdirSync(outside);
    renameSync(path.join(root, '.docsync', 'tmp'), path.join(dir, 'old-tmp'));
    symlinkSync(outside, path.join(root, '.docsync', 'tmp'));

    sim.admin.addAttachment(doc!.id, { name: 'first.pdf', bytes: 'first' });
    await changeOf();
    expect(await attemptsOf()).toBe(1);

    // Nothing new: the next cycles leave the document alone while its backoff runs.
    await changeOf();
    await changeOf();
    expect(await attemptsOf()).toBe(1);

    // Something new for it: tried again at once.
    sim.admin.addAttachment(doc!.id, { name: 'second.pdf', bytes: 'second' });
    await changeOf();
    expect(await attemptsOf()).toBe(2);
    expect(readdirSync(outside), 'nothing written through the link').toEqual([]);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });
});
