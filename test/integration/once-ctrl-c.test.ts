/**
 * Ctrl-C during `docsync run --once` at the service's rate (issue 27, case 6): with documents in
 * flight and requests waiting in the queue at 10 requests a second, the run stops within seconds
 * of the signal, whatever is in flight (a slow download is cut and discarded, nothing
 * half-written is left in the folder), and its summary and `docsync status` agree: what was left
 * is not an error. A second Ctrl-C exits at once with a sentence saying what was left. The next
 * run finishes it. A real child process: the signal and the exit are the point.
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
/**
 * How soon after the signal the run has exited: the 2 s the requests in flight get, and room for
 * a busy machine. What is in flight would take a minute: only a cut ends it this soon.
 */
const STOPPED_WITHIN_MS = 10_000;
/** A child's start, its run and the next one, on a busy machine. */
const CHILD_TEST_MS = 60_000;

/** A small firm whose downloads crawl (a minute a file): some are in flight when the signal comes. */
async function startFirm() {
  const sim = await startSim({
    rateLimitPerSecond: 10,
    seed: {
      companies: 3,
      trusts: 1,
      documentsPerEntity: 2,
      attachmentsPerDocument: 2,
      attachmentBytes: ATTACHMENT_BYTES,
    },
    faults: { linkBytesPerSecond: 1_000 },
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

/**
 * Once downloads are under way (files in `.docsync/tmp`, a slot each), with more requests queued
 * behind them than the slots left: 16 attachments and 4 slots.
 */
async function midRun(sim: Simulator, dir: string, child: ChildProcess) {
  const tmp = path.join(dir, 'documents', '.docsync', 'tmp');
  await eventually(() => {
    expect(child.exitCode).toBeNull();
    return filesUnder(tmp).length >= 2;
  }, 30_000);
  expect(sim.admin.counters().links.requests, 'downloads waiting in the queue').toBeLessThan(16);
}

function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  // A temp file or folder may go between the listing and its stat: gone is not a file.
  return entries
    .map((e) => path.join(dir, e))
    .filter((p) => statSync(p, { throwIfNoEntry: false })?.isFile() ?? false);
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

describe('Ctrl-C during docsync run --once (issue 27, case 6)', { timeout: CHILD_TEST_MS }, () => {
  it('stops within seconds at 10 requests/s, cuts what is in flight, and says nothing failed', async () => {
    const { sim, dir, env, config } = await startFirm();
    const run = start(config, env);
    await midRun(sim, dir, run.child);
    const stopAt = Date.now();
    run.child.kill('SIGINT');
    const code = await run.exited;
    const took = Date.now() - stopAt;
    expect(code, run.out.stderr).toBe(4);
    expect(took, run.out.stderr).toBeLessThan(STOPPED_WITHIN_MS);
    expect(run.out.stderr).toContain('SIGINT: stopping now');
    expect(run.out.stderr).toContain('the next run takes up the rest');

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
    // Unthrottled, and what the stopped run wrote counts at once (no settle wait).
    const fast = writeCliConfig(dir, sim, {
      settleSeconds: 0,
      queue: { requestsPerSecond: 1000, concurrency: 8 },
    });
    const again = await runCli(['run', '--once', '--config', fast], { env });
    expect(again.code, again.stderr).toBe(0);
    expectNothingHalfWritten(dir);
  });

  it('a second Ctrl-C exits at once, saying what was left and that the next run finishes it', async () => {
    const { sim, dir, env, config } = await startFirm();
    const run = start(config, env);
    await midRun(sim, dir, run.child);
    // The second the moment the first is heard, while what is in flight has its 2 s.
    run.child.stderr.on('data', () => {
      if (run.out.stderr.includes('stopping now')) run.child.kill('SIGINT');
    });
    run.child.kill('SIGINT');
    const code = await run.exited;
    expect(code, run.out.stderr).toBe(4);
    expect(run.out.stderr).toMatch(/SIGINT again: stopped at once; .*the next run finishes/);
    const status = JSON.parse(
      (await runCli(['status', '--json', '--config', config], { env })).stdout,
    );
    expect(status.lastCycle.result).toBe('interrupted');
    expect(status.itemsInError).toEqual([]);
  });

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
    // The upload answers only after a minute: it is in flight when the signal comes, and past
    // the grace.
    sim.admin.setFaults({
      routeLatencyMs: { '/companies/{ownerId}/documents/{documentId}/attachments': 60_000 },
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
    expect(Date.now() - stopAt).toBeLessThan(STOPPED_WITHIN_MS);
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
  });
});
