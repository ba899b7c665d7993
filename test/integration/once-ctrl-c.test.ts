/**
 * Ctrl-C during `docsync run --once` at the service's rate (issue 27, case 6): at 10 requests a
 * second with documents in flight, the run stops within 5 s of the signal, whatever is in flight
 * (a slow download is cut and discarded, nothing half-written is left in the folder), and its
 * summary and `docsync status` agree: what was left is not an error. A second Ctrl-C exits at once
 * with a sentence saying what was left. The next run finishes it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually } from '../helpers/daemon-process.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

const ATTACHMENT_BYTES = 60_000;

async function startFirm() {
  const sim = await startSim({
    rateLimitPerSecond: 10,
    seed: {
      companies: 30,
      trusts: 10,
      documentsPerEntity: 4,
      attachmentsPerDocument: 3,
      attachmentBytes: ATTACHMENT_BYTES,
    },
    // Downloads crawl (6 s a file): some are always in flight when the signal comes.
    faults: { linkBytesPerSecond: 10_000 },
  });
  const dir = tempDir();
  const env = { ...process.env, DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const config = writeCliConfig(dir, sim, { queue: { requestsPerSecond: 10, concurrency: 4 } });
  return { sim, dir, env, config };
}

function start(config: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, 'run', '--once', '--json', '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    out.stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, out, exited };
}

/** Once downloads are under way (some files in `.docsync/tmp`), with many requests queued. */
async function midRun(sim: Simulator, dir: string, child: ChildProcess) {
  const tmp = path.join(dir, 'documents', '.docsync', 'tmp');
  await eventually(() => {
    expect(child.exitCode).toBeNull();
    return sim.admin.counters().api.total > 40 && filesUnder(tmp).length > 0;
  }, 30_000);
}

function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return entries.map((e) => path.join(dir, e)).filter((p) => statSync(p).isFile());
}

/** Every attachment in the folder is whole: the seeded size, and listed in its `.document.json`. */
function expectNothingHalfWritten(dir: string) {
  const root = path.join(dir, 'documents');
  for (const file of filesUnder(path.join(root, 'Companies')).concat(
    filesUnder(path.join(root, 'Trusts')),
  )) {
    const name = path.basename(file);
    if (name.startsWith('.') || name.endsWith('.url')) continue;
    expect(statSync(file).size, file).toBe(ATTACHMENT_BYTES);
    const meta = JSON.parse(readFileSync(path.join(path.dirname(file), '.document.json'), 'utf8'));
    expect(meta.attachments.map((a: { file: string }) => a.file)).toContain(name);
  }
  expect(filesUnder(path.join(root, '.docsync', 'tmp'))).toEqual([]);
}

describe('Ctrl-C during docsync run --once (issue 27, case 6)', () => {
  it('stops within 5 s at 10 requests/s, cuts what is in flight, and says nothing failed', async () => {
    const { sim, dir, env, config } = await startFirm();
    const run = start(config, env);
    await midRun(sim, dir, run.child);
    const stopAt = Date.now();
    run.child.kill('SIGINT');
    const code = await run.exited;
    const took = Date.now() - stopAt;
    expect(code, run.out.stderr).toBe(4);
    expect(took, run.out.stderr).toBeLessThan(5_000);
    expect(run.out.stderr).toContain('SIGINT: stopping now');

    const summary = JSON.parse(run.out.stdout);
    const status = JSON.parse(
      (await runCli(['status', '--json', '--config', config], { env })).stdout,
    );
    expect(status.lastCycle.result).toBe('interrupted');
    // The summary and `docsync status` agree on what failed: nothing did; the rest was left.
    expect(summary.errors).toBe(status.itemsInError.length);
    expect(summary.errors).toBe(0);
    expect(status.pushes.failed).toBe(0);
    expect(summary.left.documents + summary.left.entities).toBeGreaterThan(0);
    expectNothingHalfWritten(dir);

    sim.admin.setFaults({});
    sim.admin.setRateLimit(0);
    const fast = writeCliConfig(dir, sim, { queue: { requestsPerSecond: 1000, concurrency: 8 } });
    const again = await runCli(['run', '--once', '--config', fast], { env, timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(0);
    expectNothingHalfWritten(dir);
  }, 90_000);

  it('a second Ctrl-C exits at once, saying what was left and that the next run finishes it', async () => {
    const { sim, dir, env, config } = await startFirm();
    const run = start(config, env);
    await midRun(sim, dir, run.child);
    run.child.kill('SIGINT');
    // The second once the first is heard: requests in flight (slow downloads) still have time.
    await eventually(() => run.out.stderr.includes('stopping now'));
    run.child.kill('SIGINT');
    const code = await run.exited;
    expect(code, run.out.stderr).toBe(4);
    expect(run.out.stderr).toMatch(/SIGINT again: stopped at once; .*the next run finishes/);
    const status = JSON.parse(
      (await runCli(['status', '--json', '--config', config], { env })).stdout,
    );
    expect(status.lastCycle.result).toBe('interrupted');
    expect(status.itemsInError).toEqual([]);
  }, 90_000);

  it('a push cut in flight stays in doubt, and the next run settles it without sending it twice', async () => {
    const sim = await startSim({
      rateLimitPerSecond: 0,
      seed: { companies: 1, trusts: 0, documentsPerEntity: 1, attachmentsPerDocument: 1 },
    });
    const dir = tempDir();
    const env = { ...process.env, DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const config = writeCliConfig(dir, sim, { settleSeconds: 0 });
    expect((await runCli(['run', '--once', '--config', config], { env })).code).toBe(0);
    const companies = path.join(dir, 'documents', 'Companies');
    const entity = path.join(companies, readdirSync(companies)[0]!);
    const folder = path.join(entity, readdirSync(entity).find((f) => f.includes('['))!);
    writeFileSync(path.join(folder, 'signed.pdf'), 'signed by the client');
    // The upload answers only after 8 s: it is in flight when the signal comes, and past the grace.
    sim.admin.setFaults({
      routeLatencyMs: { '/companies/{ownerId}/documents/{documentId}/attachments': 8_000 },
    });
    const run = start(config, env);
    const state = path.join(dir, 'state', 'docsync.db');
    // A push marked sent and not yet answered: in flight.
    await eventually(() => {
      const db = new BetterSqlite3(state, { readonly: true });
      try {
        const sent = db.prepare("SELECT count(*) FROM outbox WHERE state = 'sent'").pluck().get();
        return (sent as number) > 0;
      } finally {
        db.close();
      }
    });
    const stopAt = Date.now();
    run.child.kill('SIGINT');
    expect(await run.exited, run.out.stderr).toBe(4);
    expect(Date.now() - stopAt).toBeLessThan(5_000);
    const status = JSON.parse(
      (await runCli(['status', '--json', '--config', config], { env })).stdout,
    );
    expect(status.pushes).toMatchObject({ inDoubt: 1, failed: 0 });
    expect(status.itemsInError).toEqual([]);
    expect(JSON.parse(run.out.stdout).errors).toBe(0);

    sim.admin.setFaults({});
    const again = await runCli(['run', '--once', '--config', config], { env });
    expect(again.code, again.stderr).toBe(0);
    const dump = await sim.admin.dump();
    const names = dump.documents.flatMap((d) => d.attachments.map((a) => a.name));
    expect(names.filter((n) => n === 'signed.pdf')).toHaveLength(1);
    const settled = JSON.parse(
      (await runCli(['status', '--json', '--config', config], { env })).stdout,
    );
    expect(settled.pushes).toMatchObject({ pending: 0, inDoubt: 0, failed: 0 });
  }, 60_000);
});
