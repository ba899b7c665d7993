/**
 * Issue 25, case 5, at the level a user reaches: the real daemon (the built CLI), the simulator
 * on port 0, a real folder. Document folders removed under the daemon wait
 * `safety.deleteHoldSeconds` before they count; the ones that fall due together are judged
 * together, over the whole store, so a burst is seen whole instead of passing in slices; once a
 * rail holds, every delete waits for a person. The hold is 2 s here (60 s by default).
 */
import { readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { type DaemonProcess, eventually, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { served } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

const HOLD_SECONDS = 2;

interface HeldRow {
  readonly documentId: string;
  readonly side: 'local' | 'remote';
  readonly decision: string | null;
  readonly waitingUntil: string | null;
  readonly reason: string;
}

/**
 * A firm of `documents` documents over four companies and a trust, a store in step with it
 * (made by `--once`), and the daemon started on it with the default rails and a short hold.
 */
async function daemonInStep(documents: number, holdSeconds = HOLD_SECONDS) {
  const sim = await startSim({
    rateLimitPerSecond: 0,
    seed: { companies: 4, trusts: 1, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 25 },
  });
  const company = (await sim.admin.dump()).companies[0]!;
  for (let i = 20; i < documents; i++)
    sim.admin.createDocument({
      owner: { kind: 'company', id: String(company.id) },
      name: `Extra ${i}`,
    });
  const dir = tempDir();
  const root = path.join(dir, 'documents');
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const config = writeCliConfig(dir, sim, {
    settleSeconds: 0.3,
    // The defaults (50 %, 100) but for the hold.
    safety: { deleteHoldSeconds: holdSeconds },
    // Only the watcher, the hold and decisions start syncs after the daemon's catch-up.
    schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
    log: { level: 'info' },
  });
  const once = await runCli(['run', '--once', '--config', config], { env });
  expect(once.code, once.stderr).toBe(0);
  const daemon = startDaemon(config, env);
  await daemon.started;
  // The start's catch-up is done once its round is logged: the folder is in step.
  await eventually(() => daemon.output().includes('"msg":"poll round'));
  const folders = documentFolders(root);
  expect(folders).toHaveLength(documents);
  const held = async (): Promise<HeldRow[]> => {
    const { stdout } = await runCli(['deletes', '--json', '--config', config], { env });
    return JSON.parse(stdout) as HeldRow[];
  };
  const inService = async () => (await sim.admin.dump()).documents.map((d) => d.id);
  const deletesInService = () => served(sim, /^DELETE \S*\/documents\/[^/]+ 2\d\d$/);
  return { dir, root, env, config, daemon, folders, held, inService, deletesInService };
}

/** Every document folder of the store: its path and its document id. */
function documentFolders(root: string): { path: string; id: string }[] {
  return ['Companies', 'Trusts'].flatMap((top) =>
    readdirSync(path.join(root, top)).flatMap((entity) =>
      readdirSync(path.join(root, top, entity))
        .filter((f) => /\[\d+\]$/.test(f))
        .map((f) => ({ path: path.join(root, top, entity, f), id: /\[(\d+)\]$/.exec(f)![1]! })),
    ),
  );
}

/** The daemon's log lines (pino JSON). */
function logLines(daemon: DaemonProcess): { level: number; msg: string }[] {
  return daemon
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('docsync run: a mass delete is seen whole (issue 25, case 5)', () => {
  it('18 of 23 document folders removed in a burst: nothing is deleted in the service, every one is held for a person', async () => {
    const d = await daemonInStep(23);
    const removed = d.folders.slice(0, 18);
    for (const f of removed) rmSync(f.path, { recursive: true });

    // Each removal waits its hold time, then they fall due together and are judged together.
    await eventually(async () => {
      // Not one delete reaches the service meanwhile (on the base commit: 10 of the 18 did).
      expect(d.deletesInService(), 'documents deleted in the service').toBe(0);
      const rows = await d.held();
      return rows.length === 18 && rows.every((r) => r.waitingUntil === null);
    }, 20_000);
    // Long past every hold: still nothing deleted, and every one waits for a person.
    await sleep(HOLD_SECONDS * 1000 + 1500);
    const rows = await d.held();
    expect(rows.map((r) => r.documentId).sort()).toEqual(removed.map((f) => f.id).sort());
    expect(rows.every((r) => r.side === 'remote' && r.decision === null)).toBe(true);
    expect(rows.every((r) => r.waitingUntil === null)).toBe(true);
    expect(d.deletesInService()).toBe(0);
    expect(await d.inService()).toHaveLength(23);
    expect(readdirSync(path.join(d.root, '.docsync', 'trash')).length).toBe(0);

    // The log says so truthfully: the removals waited, then one verdict held them all.
    const lines = logLines(d.daemon);
    const msgs = lines.map((l) => l.msg);
    expect(msgs.some((m) => /waits? until/.test(m) && m.includes('safety.deleteHoldSeconds'))).toBe(
      true,
    );
    const verdicts = lines.filter((l) => l.level >= 50 && /safety\.maxDelete/.test(l.msg));
    expect(verdicts.length).toBeGreaterThan(0);
    expect(verdicts[0]!.msg).toMatch(/^18 of 23 documents \(78%\)/);
    expect(verdicts[0]!.msg).toContain('18 held');
    expect(msgs.some((m) => m.includes('deleted the document in the service'))).toBe(false);

    // `docsync status` says the same.
    const status = await runCli(['status', '--config', d.config], { env: d.env });
    expect(status.stdout).toContain('Held deletes: 18');
    expect(status.stdout).toContain('decide with docsync deletes approve|discard');

    d.daemon.child.kill('SIGTERM');
    expect(await d.daemon.exited).toBe(0);
  }, 60_000);

  it('a single removed folder is deleted in the service after the hold, not before', async () => {
    // Long enough for a few commands to look while it waits.
    const holdSeconds = 6;
    const d = await daemonInStep(20, holdSeconds);
    const [gone] = d.folders;
    const removedAt = Date.now();
    rmSync(gone!.path, { recursive: true });

    // Meanwhile it waits, and `docsync status`, `docsync deletes` and the log say until when.
    let status = '';
    await eventually(async () => {
      status = (await runCli(['status', '--config', d.config], { env: d.env })).stdout;
      return status.includes('Deletes in their hold time: 1');
    });
    expect(status).toContain(`${gone!.id} `);
    expect(status).toMatch(/delete in the service waits until \d{4}-/);
    expect(status).toContain('Held deletes: 0');
    const [row] = await d.held();
    expect(row!.waitingUntil).not.toBeNull();
    expect(Date.parse(row!.waitingUntil!)).toBeGreaterThanOrEqual(removedAt + holdSeconds * 1000);
    expect(await d.inService()).toContain(gone!.id);
    expect(logLines(d.daemon).map((l) => l.msg)).toContainEqual(
      expect.stringMatching(/was removed from the store: its delete in the service waits until/),
    );

    await eventually(async () => !(await d.inService()).includes(gone!.id));
    expect(Date.now() - removedAt).toBeGreaterThanOrEqual(holdSeconds * 1000);
    await eventually(async () => (await d.held()).length === 0);
    expect(d.deletesInService()).toBe(1);

    d.daemon.child.kill('SIGTERM');
    expect(await d.daemon.exited).toBe(0);
  }, 60_000);

  it('a folder removed and put back within the hold deletes nothing', async () => {
    const d = await daemonInStep(20);
    const [away] = d.folders;
    const outside = path.join(d.dir, 'dragged-away');
    renameSync(away!.path, outside);
    await eventually(async () => (await d.held()).length === 1);
    renameSync(outside, away!.path);

    // The hold ends with the folder back: the delete is dropped, nothing reaches the service.
    await eventually(async () => (await d.held()).length === 0);
    await sleep(HOLD_SECONDS * 1000 + 1000);
    expect(await d.held()).toEqual([]);
    expect(d.deletesInService()).toBe(0);
    expect(await d.inService()).toContain(away!.id);
    expect(logLines(d.daemon).map((l) => l.msg)).toContainEqual(
      expect.stringMatching(/is back in the store .*: its delete in the service is dropped$/),
    );

    d.daemon.child.kill('SIGTERM');
    expect(await d.daemon.exited).toBe(0);
  }, 60_000);
});
