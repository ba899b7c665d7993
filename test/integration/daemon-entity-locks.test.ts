/**
 * Issue 25 at the level a user reaches: the daemon's paths meet on one entity at the same
 * moment, and each waits its turn (the entity's lock) instead of undoing another's work. The
 * daemon is `docsync run`'s (createDaemon), in this process; SIGTERM's path to its close is
 * daemon.test's. A sync is kept in flight by holding the service's answer until the test has
 * seen the other path wait, not by a latency long enough on a quiet machine.
 */
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateStore } from '../../src/state/state-store.js';
import { documentFolderOf, firmInStep, HOOK } from '../helpers/daemon-firm.js';
import { holdDocumentDetails, useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { postWebhook } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

describe('case 4: the first start, a slow company list and a webhook at once', () => {
  it('makes one folder per entity, and the next run finds every document where it is', async () => {
    const dir = tempDir();
    const firm = await firmInStep(
      startSim,
      dir,
      { companies: 12, trusts: 4, documentsPerEntity: 1, attachmentsPerDocument: 1, seed: 3 },
      { inStep: false, sim: { faults: { routeLatencyMs: { '/companies': 100 } } } },
    );
    const { sim, root, env } = firm;
    const config = firm.config({ queue: { requestsPerSecond: 200, concurrency: 4 } });
    const dump = await sim.admin.dump();
    const company = dump.companies[0]!;
    const daemon = startDaemon(config, env);
    // As soon as the daemon has started: the catalogue is being read for the first sync.
    await daemon.started;
    expect(daemon.output()).not.toContain('first sync finished');
    const hook = daemon.url('webhook receiver listening');
    const doc = dump.documents.find((d) => d.owner.id === String(company.id))!;
    const sent = await postWebhook(
      hook,
      {
        entityId: company.id,
        eventId: 'first-start',
        eventType: 'documentChange',
        eventSubType: 'statusChange',
        firmId: 'firm-1',
        tenants: [{ tenantId: doc.id, tenantType: 'documentId' }],
        userId: 'someone',
      },
      HOOK,
    );
    expect(sent.status).toBe(200);
    await eventually(() => daemon.output().includes('first sync finished'), 30_000);
    const status = async () =>
      JSON.parse((await runCli(['status', '--json', '--config', config], { env })).stdout) as {
        pendingWebhookEvents: number;
      };
    await eventually(async () => (await status()).pendingWebhookEvents === 0);

    const folders = ['Companies', 'Trusts'].flatMap((top) =>
      readdirSync(path.join(root, top)).map((f) => `${top}/${f}`),
    );
    expect(folders).toHaveLength(dump.companies.length + dump.trusts.length);
    expect(folders.filter((f) => / \(2\)$/.test(f))).toEqual([]);
    const documentFolders = () =>
      folders.flatMap((f) => readdirSync(path.join(root, f)).filter((d) => d.includes('[')));
    expect(documentFolders()).toHaveLength(dump.documents.length);
    await daemon.stop();

    const once = await runCli(['run', '--once', '--json', '--config', config], { env });
    expect(once.code, once.stderr).toBe(0);
    const summary = JSON.parse(once.stdout) as { actions: number };
    expect(summary.actions).toBe(0);
    expect(documentFolders()).toHaveLength(dump.documents.length);
  }, 60_000);
});

describe('case 7: SIGTERM while a webhook sync runs and another waits', () => {
  it('starts nothing after the signal, and exits once the sync in flight has finished', async () => {
    const dir = tempDir();
    const firm = await firmInStep(startSim, dir, {
      companies: 1,
      trusts: 1,
      documentsPerEntity: 2,
      attachmentsPerDocument: 1,
      seed: 5,
    });
    const { sim } = firm;
    const config = firm.config({ settleSeconds: 0.3, log: { level: 'debug' } });
    const daemon = startDaemon(config, firm.env);
    await daemon.started;
    // The start's catch-up round ends before the webhook's sync is asked for.
    await eventually(() => daemon.output().includes('poll round finished'));
    sim.admin.setWebhook({ url: daemon.url('webhook receiver listening'), ...HOOK });
    const doc = (await sim.admin.dump()).documents.find((d) => d.owner.kind === 'company')!;
    // The webhook's sync stays in flight, at the document's details, until the test lets it go.
    const details = holdDocumentDetails(daemon.app, doc.id);
    sim.admin.addAttachment(doc.id, { name: 'late.pdf', bytes: '%PDF-1.4 late' });
    await eventually(() => details.held() > 0);
    expect(daemon.output()).toMatch(/"trigger":"webhook"[^\n]*"msg":"cycle started"/);
    // A file dropped into the same company's folder: its sync waits for the webhook's.
    const { folder } = documentFolderOf(firm.root, 'Companies', doc.id);
    writeFileSync(path.join(folder, 'dropped.txt'), 'waits');
    await eventually(() => daemon.daemon.scheduler.snapshot().waiting.watcher === 1);

    // What SIGTERM starts: the close waits for the sync in flight, and starts nothing.
    const signalledAt = Date.now();
    let stopped = false;
    const stopping = daemon.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stopped).toBe(false);
    details.release();
    await stopping;
    const state = StateStore.open(path.join(dir, 'state', 'docsync.db'), { existing: true });
    try {
      const cycles = state.db
        .prepare<[], { trigger: string; started_at: number; result: string | null }>(
          'SELECT trigger, started_at, result FROM cycles ORDER BY id',
        )
        .all();
      // The sync in flight ended, and was recorded, before the daemon stopped.
      expect(cycles.filter((c) => c.trigger === 'webhook').map((c) => c.result)).not.toContain(
        null,
      );
      expect(cycles.some((c) => c.trigger === 'webhook')).toBe(true);
      expect(cycles.filter((c) => c.started_at >= signalledAt)).toEqual([]);
    } finally {
      state.close();
    }
  }, 60_000);
});

describe('case 1: `conflicts resolve` while the daemon syncs the same document', () => {
  it("waits for the sync, prints the resolution, and the person's status reaches the service", async () => {
    const dir = tempDir();
    const seed = { companies: 1, trusts: 0, documentsPerEntity: 2, attachmentsPerDocument: 1 };
    const firm = await firmInStep(startSim, dir, { ...seed, seed: 6 });
    const { sim } = firm;
    const doc = (await sim.admin.dump()).documents[0]!;
    sim.admin.assignStatus(doc.id, { typeId: 10 }); // RECEIVED, on both sides after the next run
    await firm.once();
    const meta = path.join(
      documentFolderOf(firm.root, 'Companies', doc.id).folder,
      '.document.json',
    );
    const status = () => (JSON.parse(readFileSync(meta, 'utf8')) as { status: string }).status;
    // A status conflict the service won: the folder's CANCELLED, older than its LODGED.
    const edited = { ...JSON.parse(readFileSync(meta, 'utf8')), status: 'CANCELLED' };
    writeFileSync(meta, JSON.stringify(edited));
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(meta, hourAgo, hourAgo);
    sim.admin.assignStatus(doc.id, { typeId: 21 });
    await firm.once();
    expect(status()).toBe('LODGED');

    const config = firm.config({ settleSeconds: 0.3, log: { level: 'debug' } });
    const cli = (args: string[]) => runCli([...args, '--config', config], { env: firm.env });
    const [conflict] = JSON.parse((await cli(['conflicts', '--json'])).stdout) as {
      id: number;
      winner: string;
    }[];
    expect(conflict).toMatchObject({ winner: 'remote' });
    const daemon = startDaemon(config, firm.env);
    await daemon.started;
    await eventually(() => daemon.output().includes('poll round finished'));
    sim.admin.setWebhook({ url: daemon.url('webhook receiver listening'), ...HOOK });

    // A new status in the service, whose details answer is late (4 s in the issue's account):
    // here held until the command's decision waits for the sync.
    const details = holdDocumentDetails(daemon.app, doc.id);
    sim.admin.assignStatus(doc.id, { typeId: 3 });
    await eventually(() => details.held() > 0);
    expect(daemon.output()).toMatch(/"trigger":"webhook"[^\n]*"msg":"cycle started"/);
    const resolving = cli(['conflicts', 'resolve', String(conflict!.id), 'keep-mine']);
    await eventually(() =>
      /"msg":"decision \(resolve-conflict\) waits for the [^"]+ to end"/.test(daemon.output()),
    );
    details.release();
    const resolved = await resolving;

    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toContain('resolved: keep-mine');
    // The daemon carried it out after its sync, and its next sync pushed it.
    const serviceStatus = async () =>
      (await sim.admin.dump()).documents.find((d) => d.id === doc.id)!.status?.type;
    await eventually(async () => (await serviceStatus()) === 'CANCELLED', 30_000);
    expect(status()).toBe('CANCELLED');
    const all = JSON.parse((await cli(['conflicts', '--all', '--json'])).stdout) as {
      id: number;
      resolution: string | null;
    }[];
    expect(all.find((c) => c.id === conflict!.id)?.resolution).toBe('keep-mine');
    expect(daemon.output()).toContain('decision carried out (resolve-conflict)');
  }, 60_000);
});
