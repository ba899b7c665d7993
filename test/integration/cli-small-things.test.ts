/**
 * Issue 27 case 10, the small things a new user tripped over, each where a user meets it: the
 * built CLI against the simulator, the daemon's log, a terminal's screen, the repository.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ProgressDisplay } from '../../src/commands/progress-display.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { screen } from '../helpers/terminal-screen.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const sims: Simulator[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

/** One company with two documents of one file each, synced once. */
async function syncedFirm(settings: Record<string, unknown> = {}) {
  const sim = await startSimulator({
    rateLimitPerSecond: 0,
    seed: { companies: 1, trusts: 0, documentsPerEntity: 2, attachmentsPerDocument: 1, seed: 3 },
  });
  sims.push(sim);
  const dir = tempDir();
  const config = writeCliConfig(dir, sim, { settleSeconds: 0, ...settings });
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const first = await runCli(['run', '--once', '--config', config], { env, timeoutMs: 30_000 });
  expect(first.code, first.stderr).toBe(0);
  const root = path.join(dir, 'documents');
  const [company] = readdirSync(path.join(root, 'Companies'));
  const companyDir = path.join(root, 'Companies', company!);
  const folders = readdirSync(companyDir).filter((f) => f.includes('['));
  const name = (await sim.admin.dump()).companies[0]!;
  return { sim, config, env, first, root, companyDir, folders, company: name };
}

describe('the small things', () => {
  it('lists name entities by name with their id, and count one as one', async () => {
    const firm = await syncedFirm({ safety: { maxDeleteCount: 0, maxDeletePercent: 100 } });
    const { sim, config, env, companyDir, folders, company } = firm;
    const label = `${company.name} (company ${company.id})`;
    // A conflict: the status set on both sides at once.
    const [kept, removed] = folders as [string, string];
    const meta = path.join(companyDir, kept, '.document.json');
    const doc = JSON.parse(readFileSync(meta, 'utf8'));
    writeFileSync(meta, JSON.stringify({ ...doc, status: 'SENT TO CLIENT' }, null, 2));
    await sim.admin.assignStatus(doc.id, { typeId: 20 });
    // A held delete: one folder removed, over a rail that lets none through.
    rmSync(path.join(companyDir, removed), { recursive: true });

    const held = await runCli(['run', '--once', '--config', config], { env, timeoutMs: 30_000 });
    expect(held.code, held.stderr).toBe(2);

    const conflicts = await runCli(['conflicts', '--config', config], { env });
    expect(conflicts.stdout).toContain(`  ${label}  `);
    const deletes = await runCli(['deletes', '--config', config], { env });
    expect(deletes.stdout).toMatch(/^1 delete held by the safety rails:\n/);
    expect(deletes.stdout).toContain(`  ${label}  `);
    const status = await runCli(['status', '--config', config], { env });
    expect(status.stdout).toContain(`\n  ${label}: synced `);
    expect(status.stdout).toMatch(
      new RegExp(`\\n {2}\\d+ .*${escapeRegExp(label)} .*\\(\\w+ won\\)`),
    );
    const approved = await runCli(['deletes', 'approve', '--all', '--config', config], { env });
    expect(approved.stdout).toMatch(/^Approved 1 held delete:\n/);
    // The company's sync is work now, for whichever run comes next, a daemon's first.
    const waiting = await runCli(['status', '--config', config], { env });
    expect(waiting.stdout).toContain('\nSyncs waiting: 1 entity\n');
    const after = await runCli(['run', '--once', '--config', config], { env, timeoutMs: 30_000 });
    expect(after.code, after.stderr).toBe(0);
    const done = await runCli(['status', '--config', config], { env });
    expect(done.stdout).toContain('\nSyncs waiting: none\n');
    const trash = await runCli(['trash', '--config', config], { env });
    expect(trash.stdout).toMatch(/document folder, 1 file, /);
    expect(`${conflicts.stdout}${deletes.stdout}${trash.stdout}`).not.toMatch(
      /\b1 (files|deletes|documents)\b/,
    );
  }, 90_000);

  it('says nothing of housekeeping that removed nothing, as on a first run', async () => {
    const { first } = await syncedFirm({ log: { level: 'info' } });

    expect(first.stdout).toContain('run finished');
    expect(first.stdout).not.toContain('housekeeping');
  });

  it('logs each listener once', async () => {
    const sim = await startSimulator({ seed: 'demo' });
    sims.push(sim);
    const dir = tempDir();
    const config = writeCliConfig(dir, sim, {
      webhook: { listen: '127.0.0.1:0', clientCode: 'c', secret: 's' },
      status: { listen: '127.0.0.1:0' },
      log: { level: 'info' },
    });
    const daemon = startDaemon(config, { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() });
    await daemon.started;

    const lines = daemon.output().split('\n');
    expect(lines.filter((l) => l.includes('"msg":"webhook receiver listening"'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"msg":"status page listening"'))).toHaveLength(1);
  });

  it('says a port in use once: "EADDRINUSE: address already in use", not "EADDRINUSE: listen EADDRINUSE"', async () => {
    const taken = createServer();
    servers.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const sim = await startSimulator({ seed: 'demo' });
    sims.push(sim);
    const config = writeCliConfig(tempDir(), sim, { status: { listen: `127.0.0.1:${port}` } });

    const run = await runCli(['run', '--config', config], {
      env: { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() },
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`(EADDRINUSE: address already in use 127.0.0.1:${port})`);
    expect(run.stderr).not.toContain('EADDRINUSE: listen');
  });

  it('prints a log line above the progress bar whole, however narrow the terminal', () => {
    let written = '';
    const terminal = Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          written += String(chunk);
          done();
        },
      }),
      { isTTY: true, columns: 60 },
    );
    const display = new ProgressDisplay(terminal);
    const line = `WARN: ${'a long log line with its JSON fields '.repeat(4)}{"owner":"company:4411"}`;

    display.print(line);
    display.stop();

    const shown = screen(written, { columns: 60 });
    expect(shown.join('')).toContain(line);
  });

  it('keeps `npm pack`’s tarball out of git', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;

    const ignored = spawnSync('git', ['check-ignore', '-q', `docsync-${version}.tgz`], {
      cwd: root,
    });

    expect(ignored.status).toBe(0);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
