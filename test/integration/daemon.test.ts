import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { documentFolderOf, firmInStep, HOOK, NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually, firstSyncDone, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { postWebhook } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startInProcess = useInProcessDaemons();
const startSim = useSimulators();

describe('docsync run (the daemon), as a user starts it', () => {
  it('catches up at start, uploads a file dropped into a document folder, refuses a second docsync on its state (exit 1), and stops on SIGTERM', async () => {
    // The process is the point here (the CLI's wiring, the lock between two processes, the
    // signal); the rate is not: the simulator takes any.
    const firm = await firmInStep(startSim, tempDir(), 'demo');
    const { sim, env, root } = firm;
    // Made while docsync was not running: the catch-up at start brings it.
    const owner = (await sim.admin.dump()).companies[0]!;
    const made = sim.admin.createDocument({
      owner: { kind: 'company', id: String(owner.id) },
      name: 'Made while stopped',
    });
    const config = firm.config({ settleSeconds: 0.3, webhook: { enabled: false } });
    const daemon = startDaemon(config, env);
    // Started: the watch is on every folder of the store.
    await daemon.started;
    const { folder } = await eventuallyFound(() =>
      documentFolderOf(root, 'Companies', String(made.id)),
    );
    writeFileSync(path.join(folder, 'dropped in.txt'), 'from the watcher test');
    await eventually(async () => {
      const doc = (await sim.admin.dump()).documents.find((d) => d.id === String(made.id));
      return doc?.attachments.some((a) => a.name === 'dropped in.txt') ?? false;
    });

    // This process is another docsync on the same state while the child runs.
    const second = await runCli(['run', '--once', '--config', config], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('Two daemons must never share one store');

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(daemon.output()).toContain('docsync daemon stopped');
    // A child process on a busy machine: its start alone can take seconds.
  }, 60_000);
});

/** What `find` returns once it stops throwing. */
async function eventuallyFound<T>(find: () => T): Promise<T> {
  let found: T | undefined;
  await eventually(() => {
    try {
      found = find();
      return true;
    } catch {
      return false;
    }
  });
  return found!;
}

/** A daemon with webhooks and the status page on free ports, cycles only when asked. */
async function daemonWithListeners(logLevel: 'info' | 'debug') {
  const sim = await startSim({ seed: 'demo', rateLimitPerSecond: 0 });
  const dir = tempDir();
  const config = writeCliConfig(dir, sim, {
    log: { level: logLevel },
    // Only webhooks may trigger the syncs after the first.
    schedule: NEVER,
    webhook: { enabled: true, listen: '127.0.0.1:0', ...HOOK },
    status: { enabled: true, listen: '127.0.0.1:0' },
  });
  const daemon = startInProcess(config, { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() });
  await daemon.started;
  const statusUrl = daemon.url('status page listening');
  await firstSyncDone(`${statusUrl}/healthz`);
  return {
    sim,
    daemon,
    root: path.join(dir, 'documents'),
    hookUrl: daemon.url('webhook receiver listening'),
    statusUrl,
  };
}

describe('docsync run with webhooks and the status page', () => {
  it('turns a Document Change webhook into a targeted sync, and reports health and metrics', async () => {
    const { sim, daemon, root, hookUrl, statusUrl } = await daemonWithListeners('info');
    sim.admin.setWebhook({ url: hookUrl, ...HOOK });
    const doc = (await sim.admin.dump()).documents.find((d) => d.owner.kind === 'trust')!;
    sim.admin.addAttachment(doc.id, { name: 'Arrived by webhook.pdf', bytes: '%PDF-1.4 webhook' });
    const { folder } = documentFolderOf(root, 'Trusts', doc.id);
    await eventually(() => readdirSync(folder).includes('Arrived by webhook.pdf'));
    await sim.admin.webhooksIdle();
    expect(sim.admin.webhookDeliveries().every((d) => d.status === 200)).toBe(true);

    const metrics = await (await fetch(`${statusUrl}/metrics`)).text();
    expect(metrics).toMatch(/docsync_cycles_total\{result="ok"\} [1-9]/);
    expect(metrics).toMatch(/docsync_webhook_events_total\{result="accepted"\} [1-9]/);
    const page = await (await fetch(statusUrl)).text();
    expect(page).toContain('Smith Bare Trust');
    await daemon.stop();
    expect(daemon.output()).toContain('docsync daemon stopped');
  });
});

describe('docsync run: a deleteDocument webhook is checked against the service', () => {
  it('case 4: a signed deleteDocument for a document that still exists trashes nothing; a real deletion still does', async () => {
    const { sim, daemon, root, hookUrl: hook } = await daemonWithListeners('debug');
    const [kept, deleted] = (await sim.admin.dump()).documents.filter(
      (d) => d.owner.kind === 'company',
    );
    const folderOf = (id: string) => {
      try {
        return documentFolderOf(root, 'Companies', id).folder;
      } catch {
        return null;
      }
    };
    const keptFolder = folderOf(kept!.id)!;
    const event = (eventId: string, documentId: string) => ({
      entityId: kept!.owner.id,
      eventId,
      eventType: 'documentChange',
      eventSubType: 'deleteDocument',
      firmId: 'firm-1',
      tenants: [{ tenantId: documentId, tenantType: 'documentId' }],
      userId: 'someone',
    });
    const done = (eventId: string) =>
      new RegExp(`"eventId":"${eventId}"[^\n]*"msg":"webhook event done"`).test(daemon.output());

    const post = (body: Record<string, unknown>) => postWebhook(hook, body, HOOK);
    expect((await post(event('false-alarm', kept!.id))).status).toBe(200);
    await eventually(() => done('false-alarm'));

    expect(folderOf(kept!.id)).toBe(keptFolder);
    expect(readdirSync(keptFolder)).toContain('.document.json');
    const trash = path.join(root, '.docsync', 'trash');
    expect(readdirSync(trash)).toEqual([]);

    sim.admin.deleteDocument(deleted!.id);
    expect((await post(event('real-deletion', deleted!.id))).status).toBe(200);
    await eventually(() => done('real-deletion'));
    expect(folderOf(deleted!.id)).toBeNull();
    expect(readdirSync(trash)).toHaveLength(1);
  });
});

describe('docsync demo', () => {
  it('syncs the demo firm into ./demo-documents and says what landed where; a second run is quiet', async () => {
    const cwd = tempDir();
    mkdirSync(cwd, { recursive: true });
    const first = await runCli(['demo'], { cwd });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/\n(\d+) changes applied/);
    expect(first.stdout).toContain('Trusts/Smith Bare Trust:');
    expect(readdirSync(path.join(cwd, 'demo-documents', 'Companies')).length).toBeGreaterThan(1);
    // At info, what a second run changed is in its log: the failure names it.
    const second = await runCli(['demo', '--log-level', 'info'], { cwd });
    expect(second.code).toBe(0);
    const changed = second.stderr.split('\n').filter((l) => l && !l.includes(': in sync"'));
    expect(second.stdout, changed.join('\n')).toContain('\n0 changes applied');
  });
});
