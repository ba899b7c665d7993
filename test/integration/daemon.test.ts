import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually, firstSyncDone, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { postWebhook } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

describe('docsync run (the daemon)', () => {
  it('syncs at start, uploads a file dropped into a document folder within seconds, and stops on SIGTERM', async () => {
    const sim = await startSim({ seed: 'demo' });
    const dir = tempDir();
    const config = writeCliConfig(dir, sim, { settleSeconds: 0.3, log: { level: 'info' } });
    const daemon = startDaemon(config, { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() });
    await daemon.started;
    const root = path.join(dir, 'documents');
    const docFolder = () => {
      const company = readdirSync(path.join(root, 'Companies'))[0]!;
      const doc = readdirSync(path.join(root, 'Companies', company)).find((d) => d.includes('['))!;
      return path.join(root, 'Companies', company, doc);
    };
    await eventually(() => {
      try {
        return docFolder() !== undefined;
      } catch {
        return false;
      }
    });
    const folder = docFolder();
    const id = /\[(\d+)\]$/.exec(folder)![1]!;
    writeFileSync(path.join(folder, 'dropped in.txt'), 'from the watcher test');
    await eventually(async () => {
      const doc = (await sim.admin.dump()).documents.find((d) => d.id === id);
      return doc?.attachments.some((a) => a.name === 'dropped in.txt') ?? false;
    });

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(daemon.output()).toContain('docsync daemon stopped');
  });

  it('refuses a second docsync on the same state while the daemon runs (exit 1)', async () => {
    const sim = await startSim({ seed: 'demo' });
    const dir = tempDir();
    const config = writeCliConfig(dir, sim, { log: { level: 'info' } });
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const daemon = startDaemon(config, env);
    await daemon.started;
    const second = await runCli(['run', '--once', '--config', config], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('Two daemons must never share one store');
  });
});

/** A daemon with webhooks and the status page on free ports, cycles only when asked. */
async function daemonWithListeners(logLevel: 'info' | 'debug') {
  const sim = await startSim({ seed: 'demo' });
  const dir = tempDir();
  const config = writeCliConfig(dir, sim, {
    log: { level: logLevel },
    // Only webhooks may trigger the syncs after the first.
    schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
    webhook: { enabled: true, listen: '127.0.0.1:0', clientCode: 'FIRM1', secret: 'hook-secret' },
    status: { enabled: true, listen: '127.0.0.1:0' },
  });
  const daemon = startDaemon(config, { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() });
  await daemon.started;
  const urlOf = (msg: string) =>
    new RegExp(`"url":"([^"]+)","msg":"${msg}"`).exec(daemon.output())?.[1];
  await eventually(
    () =>
      urlOf('webhook receiver listening') !== undefined &&
      urlOf('status page listening') !== undefined,
  );
  const statusUrl = urlOf('status page listening')!;
  await firstSyncDone(`${statusUrl}/healthz`);
  return {
    sim,
    daemon,
    root: path.join(dir, 'documents'),
    hookUrl: urlOf('webhook receiver listening')!,
    statusUrl,
  };
}

describe('docsync run with webhooks and the status page', () => {
  it('turns a Document Change webhook into a targeted sync, and reports health and metrics', async () => {
    const { sim, daemon, root, hookUrl, statusUrl } = await daemonWithListeners('info');
    sim.admin.setWebhook({
      url: hookUrl,
      clientCode: 'FIRM1',
      secret: 'hook-secret',
    });
    const doc = (await sim.admin.dump()).documents.find((d) => d.owner.kind === 'trust')!;
    sim.admin.addAttachment(doc.id, { name: 'Arrived by webhook.pdf', bytes: '%PDF-1.4 webhook' });
    const find = () => {
      for (const trust of readdirSync(path.join(root, 'Trusts'))) {
        const folder = readdirSync(path.join(root, 'Trusts', trust)).find((f) =>
          f.endsWith(`[${doc.id}]`),
        );
        if (folder) return path.join(root, 'Trusts', trust, folder);
      }
      return null;
    };
    await eventually(() => readdirSync(find()!).includes('Arrived by webhook.pdf'));
    await sim.admin.webhooksIdle();
    expect(sim.admin.webhookDeliveries().every((d) => d.status === 200)).toBe(true);

    const metrics = await (await fetch(`${statusUrl}/metrics`)).text();
    expect(metrics).toMatch(/docsync_cycles_total\{result="ok"\} [1-9]/);
    expect(metrics).toMatch(/docsync_webhook_events_total\{result="accepted"\} [1-9]/);
    const page = await (await fetch(statusUrl)).text();
    expect(page).toContain('Smith Bare Trust');
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });
});

describe('docsync run: a deleteDocument webhook is checked against the service', () => {
  it('case 4: a signed deleteDocument for a document that still exists trashes nothing; a real deletion still does', async () => {
    const { sim, daemon, root, hookUrl: hook } = await daemonWithListeners('debug');
    const [kept, deleted] = (await sim.admin.dump()).documents.filter(
      (d) => d.owner.kind === 'company',
    );
    const folderOf = (id: string) => {
      for (const company of readdirSync(path.join(root, 'Companies'))) {
        const found = readdirSync(path.join(root, 'Companies', company)).find((f) =>
          f.endsWith(`[${id}]`),
        );
        if (found) return path.join(root, 'Companies', company, found);
      }
      return null;
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
      daemon.output().includes(`"eventId":"${eventId}"`) &&
      new RegExp(`"eventId":"${eventId}"[^\n]*"msg":"webhook event done"`).test(daemon.output());

    const post = (body: Record<string, unknown>) =>
      postWebhook(hook, body, { clientCode: 'FIRM1', secret: 'hook-secret' });
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
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });
});

describe('docsync demo', () => {
  it('syncs the demo firm into ./demo-documents and says what landed where; a second run is quiet', async () => {
    const cwd = tempDir();
    mkdirSync(cwd, { recursive: true });
    const first = await runCli(['demo'], { cwd, timeoutMs: 60_000 });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/\n(\d+) changes applied/);
    expect(first.stdout).toContain('Trusts/Smith Bare Trust:');
    expect(readdirSync(path.join(cwd, 'demo-documents', 'Companies')).length).toBeGreaterThan(1);
    const second = await runCli(['demo'], { cwd, timeoutMs: 60_000 });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('\n0 changes applied');
  });
});
