/**
 * Per-item backoff, as the daemon meets it (issue 15, case 8): a document that failed is not
 * tried again by every cycle that passes, only once its backoff has ended (one minute after the
 * first failure, two after the second), or at once when what is planned for it changed (a new
 * change on either side). The daemon runs in this process, as `docsync run` assembles it; the
 * backoff runs on a clock that stands still but for what the test moves it on.
 */
import { mkdirSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { type InProcessDaemon, useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { TestClock } from '../helpers/test-clock.js';
import { postWebhook } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

/** What the daemon logged so far, a message each. */
const messagesOf = (daemon: Pick<InProcessDaemon, 'log'>) => daemon.log().map((l) => l.msg);

const FIRM = { companies: 1, trusts: 0, documentsPerEntity: 2, attachmentsPerDocument: 1, seed: 9 };
const MINUTE = 60_000;

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
      schedule: NEVER,
      webhook: { enabled: true, listen: '127.0.0.1:0', clientCode: 'FIRM1', secret: 's3cret' },
    });
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const clock = new TestClock({ standsStill: true });
    const daemon = startDaemon(config, env, { clock });
    await daemon.started;
    await eventually(() => messagesOf(daemon).some((m) => m.startsWith('first sync finished: ')));
    const hook = daemon.url('webhook receiver listening');
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
        daemon.log().some((l) => l.eventId === eventId && l.msg === 'webhook event done'),
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

    // Nothing new: the next cycles leave the document alone while its backoff (1 min) runs.
    await changeOf();
    clock.advance(MINUTE - 1);
    await changeOf();
    expect(await attemptsOf()).toBe(1);

    // Its backoff over: tried again. The second backoff is twice as long.
    clock.advance(1);
    await changeOf();
    expect(await attemptsOf()).toBe(2);
    clock.advance(2 * MINUTE - 1);
    await changeOf();
    expect(await attemptsOf()).toBe(2);

    // Something new for it: tried again at once.
    sim.admin.addAttachment(doc!.id, { name: 'second.pdf', bytes: 'second' });
    await changeOf();
    expect(await attemptsOf()).toBe(3);
    expect(readdirSync(outside), 'nothing written through the link').toEqual([]);
  });
});
