/**
 * Issue 17 at the level a user reaches: the daemon holds the instance lock, so `run --once
 * --force-deletes` cannot run beside it. A rail holds deletes under the running daemon (here in
 * this process, as `docsync run` assembles it), `docsync deletes list` and `approve` run beside
 * it, and the daemon carries the approved deletes out on its own, with the service's copies in
 * the trash first. The removed folders' hold (60 s) ends when the test moves the daemon's clock
 * past it, and not before: the clock stands still otherwise.
 */
import { readdirSync, rmSync } from 'node:fs';
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

interface HeldRow {
  readonly documentId: string;
  readonly side: string;
  readonly decision: string | null;
  readonly waitingUntil: string | null;
}

/** A firm's first sync, a daemon and a dozen commands beside it, on a busy machine. */
const BUSY_MACHINE_MS = 60_000;

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

/** What the daemon logged so far, a message each. */
const messagesOf = (daemon: Pick<InProcessDaemon, 'log'>) => daemon.log().map((l) => l.msg);

describe('docsync deletes beside the daemon', { timeout: BUSY_MACHINE_MS }, () => {
  it('a rail holds deletes under the daemon; `deletes approve` beside it, and the daemon deletes them', async () => {
    const sim = await startSim({
      rateLimitPerSecond: 0,
      seed: {
        companies: 1,
        trusts: 1,
        documentsPerEntity: 4,
        attachmentsPerDocument: 1,
        seed: 9,
      },
    });
    const dir = tempDir();
    const root = path.join(dir, 'documents');
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const settings = {
      settleSeconds: 0.3,
      // A removed folder's delete waits its hold (the default 60 s) before it counts.
      safety: { maxDeleteCount: 2, maxDeletePercent: 100 },
      // Only the watcher and the decisions start syncs after the daemon's catch-up.
      schedule: NEVER,
      log: { level: 'info' },
    };
    const config = writeCliConfig(dir, sim, settings);
    expect((await runCli(['run', '--once', '--config', config], { env })).code).toBe(0);
    const clock = new TestClock({ standsStill: true });
    const daemon = startDaemon(config, env, { clock });
    await daemon.started;
    // The start's catch-up is done once its round is logged: the folder is in step.
    await eventually(() => messagesOf(daemon).some((m) => m.startsWith('poll round finished')));

    const company = readdirSync(path.join(root, 'Companies'))[0]!;
    const companyDir = path.join(root, 'Companies', company);
    const folders = readdirSync(companyDir).filter((f) => f.includes('['));
    expect(folders).toHaveLength(4);
    const gone = folders.slice(0, 3);
    const goneIds = gone.map((f) => /\[(\d+)\]$/.exec(f)![1]!);
    for (const f of gone) rmSync(path.join(companyDir, f), { recursive: true });

    const held = async () => {
      const { stdout } = await runCli(['deletes', '--json', '--config', config], { env });
      return JSON.parse(stdout) as HeldRow[];
    };
    // Each waits its hold first; held for a person once it ended, not while it lasts.
    let holds: HeldRow[] = [];
    await eventually(async () => {
      holds = await held();
      return holds.length === 3 && holds.every((r) => r.waitingUntil !== null);
    });
    clock.advanceTo(Math.max(...holds.map((r) => Date.parse(r.waitingUntil!))));
    await eventually(async () => {
      holds = await held();
      return holds.length === 3 && holds.every((r) => r.waitingUntil === null);
    });
    expect(holds.every((h) => h.side === 'remote' && goneIds.includes(h.documentId))).toBe(true);
    const inService = async () => (await sim.admin.dump()).documents.map((d) => d.id);
    for (const h of holds) expect(await inService()).toContain(h.documentId);
    // The log names the command for this configuration, as it runs here.
    expect(daemon.output()).toMatch(/`[^`]* --config \S+ deletes list`/);
    expect(daemon.output()).not.toContain('--force-deletes');

    // The folder watcher's syncs of the removals are over: the approval's sync is the next one.
    await eventually(() => {
      const { running, waiting } = daemon.daemon.scheduler.snapshot();
      return running === 0 && Object.values(waiting).every((n) => n === 0);
    });
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
    const deleting = daemon.app.state.cycles.list().filter((c) => (c.counts?.deleted ?? 0) > 0);
    expect(deleting).toMatchObject([
      { trigger: 'manual', owner: { kind: 'company' }, counts: { deleted: 3 } },
    ]);
    const trashDays = readdirSync(path.join(root, '.docsync', 'trash'));
    const copies = trashDays.flatMap((day) =>
      readdirSync(path.join(root, '.docsync', 'trash', day, 'Companies', company)),
    );
    for (const f of gone) expect(copies).toContain(f);
  });
});
