/**
 * Issue 17 at the level a user reaches: the daemon holds the instance lock, so `run --once
 * --force-deletes` cannot run beside it. A rail holds deletes under the running daemon,
 * `docsync deletes list` and `approve` run beside it, and the daemon carries the approved
 * deletes out on its own within seconds, with the service's copies in the trash first.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

describe('docsync deletes beside the daemon', () => {
  it('a rail holds deletes under the daemon; `deletes approve` beside it, and the daemon deletes them', async () => {
    const sim = await startSim({
      rateLimitPerSecond: 0,
      seed: { companies: 1, trusts: 1, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 9 },
    });
    const dir = tempDir();
    const root = path.join(dir, 'documents');
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const settings = {
      settleSeconds: 0.3,
      // A removed folder's delete waits half a second before it counts (60 s by default).
      safety: { maxDeleteCount: 2, maxDeletePercent: 100, deleteHoldSeconds: 0.5 },
      // Only the watcher and the decisions start syncs after the daemon's catch-up.
      schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
      log: { level: 'info' },
    };
    const config = writeCliConfig(dir, sim, settings);
    expect((await runCli(['run', '--once', '--config', config], { env })).code).toBe(0);
    const daemon = startDaemon(config, env);
    await daemon.started;

    const company = readdirSync(path.join(root, 'Companies'))[0]!;
    const companyDir = path.join(root, 'Companies', company);
    const folders = readdirSync(companyDir).filter((f) => f.includes('['));
    expect(folders).toHaveLength(4);
    const gone = folders.slice(0, 3);
    const goneIds = gone.map((f) => /\[(\d+)\]$/.exec(f)![1]!);
    for (const f of gone) rmSync(path.join(companyDir, f), { recursive: true });

    const held = async () => {
      const { stdout } = await runCli(['deletes', '--json', '--config', config], { env });
      return JSON.parse(stdout) as {
        documentId: string;
        side: string;
        decision: string | null;
        waitingUntil: string | null;
      }[];
    };
    // Held for a person once their hold ended, not while it lasts.
    await eventually(async () => {
      const rows = await held();
      return rows.length > 0 && rows.every((r) => r.waitingUntil === null);
    });
    const holds = await held();
    expect(holds.every((h) => h.side === 'remote' && goneIds.includes(h.documentId))).toBe(true);
    const inService = async () => (await sim.admin.dump()).documents.map((d) => d.id);
    for (const h of holds) expect(await inService()).toContain(h.documentId);
    expect(daemon.output()).toContain('docsync deletes list');
    expect(daemon.output()).not.toContain('--force-deletes');

    const approved = await runCli(['deletes', 'approve', '--all', '--config', config], { env });
    expect(approved.code, approved.stderr).toBe(0);
    // The daemon decided them under the company's lock, synced it, and said what became of them.
    expect(approved.stdout).toContain("When: carried out now by the running daemon's sync");

    await eventually(async () => {
      const ids = await inService();
      return goneIds.every((id) => !ids.includes(id));
    });
    await eventually(async () => (await held()).length === 0);
    expect(daemon.output()).toContain('approved; syncing its company');
    // The sync a person's decision started is recorded as theirs, not as the folder watcher's.
    const status = await runCli(['status', '--json', '--config', config], { env });
    expect(JSON.parse(status.stdout).lastCycle).toMatchObject({
      trigger: 'manual',
      owner: { kind: 'company' },
    });
    const trashDays = readdirSync(path.join(root, '.docsync', 'trash'));
    const copies = trashDays.flatMap((day) =>
      readdirSync(path.join(root, '.docsync', 'trash', day, 'Companies', company)),
    );
    for (const f of gone) expect(copies).toContain(f);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    // A dozen commands beside a daemon: on a loaded machine that takes longer than 20 s.
  }, 60_000);
});
