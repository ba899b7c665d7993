/**
 * A state database that cannot be written or read, as an operator meets it. "Disk full" is real:
 * SQLite's `max_page_count` on the daemon's own connection, at the pages the file has, makes the
 * next write that needs a page fail with SQLITE_FULL, as a full disk does. A damaged file is real
 * bytes: not a database at all, cut short, or garbage over its tables.
 */
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDaemon, runOnceIn } from '../../src/commands/run-command.js';
import { openApp } from '../../src/compose.js';
import type { Daemon } from '../../src/daemon/daemon.js';
import { InstanceLock } from '../../src/state/instance-lock.js';
import type { Database } from '../../src/state/open-database.js';
import { StateStore } from '../../src/state/state-store.js';
import { MAX_BODY_BYTES } from '../../src/triggers/webhook-request.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { firstSyncDone } from '../helpers/daemon-process.js';
import { advisedCommand, capturedTerminal, runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { CLIENT_CODE, documentChange, postWebhook, SECRET } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startSim = useSimulators();
const daemons: Daemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.close()));
});

// Big enough that its first sync needs more pages than a new state file has.
const FIRM = { companies: 6, trusts: 6, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 5 };
const SMALL_FIRM = {
  companies: 1,
  trusts: 1,
  documentsPerEntity: 1,
  attachmentsPerDocument: 1,
  seed: 5,
};
const NEVER = { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' };

/** A store for `sim` whose state already holds a refresh token, so no environment is needed. */
async function prepare(overrides: Record<string, unknown> = {}, firm = FIRM) {
  const sim = await startSim({ seed: firm, rateLimitPerSecond: 0 });
  const dir = tempDir();
  const config = writeCliConfig(dir, sim, {
    log: { level: 'info' },
    schedule: NEVER,
    ...overrides,
  });
  const stateFile = path.join(dir, 'state', 'docsync.db');
  const state = StateStore.open(stateFile);
  state.tokens.seedRefreshToken(sim.admin.mintRefreshToken());
  state.close();
  const lines: string[] = [];
  const log = () =>
    lines.map((line) => JSON.parse(line) as { level: number; msg: string; url?: string });
  return {
    sim,
    dir,
    config,
    stateFile,
    logDestination: { write: (line: string) => lines.push(line) },
    log,
  };
}

/** The disk is full from here on: no write may take another page. */
function fillDisk(db: Database): void {
  db.exec('VACUUM'); // no free pages left inside the file either
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
}

/** Fails the test if `daemon` has not stopped by itself within `ms`. */
function stoppedWithin(daemon: Daemon, ms: number): Promise<unknown> {
  return Promise.race([
    daemon.finished().then(
      () => new Error('the daemon stopped without a reason'),
      (reason: unknown) => reason,
    ),
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`the daemon still runs after ${ms} ms`)), ms),
    ),
  ]);
}

function expectLockFree(stateFile: string): void {
  const state = StateStore.open(stateFile);
  try {
    // Our own pid is alive, so only a released lock can be taken here.
    expect(() => InstanceLock.acquire(state.db).release()).not.toThrow();
  } finally {
    state.close();
  }
}

describe('a state database on a full disk', () => {
  it('stops the daemon whose cycle cannot be recorded, with one fatal sentence naming the file, and frees the lock', async () => {
    const p = await prepare();
    const { daemon, app } = createDaemon(capturedTerminal().terminal, {
      config: p.config,
      logDestination: p.logDestination,
    });
    daemons.push(daemon);
    fillDisk(app.state.db);
    await daemon.start();

    const reason = await stoppedWithin(daemon, 10_000);
    expect(reason).toMatchObject({ code: 'STATE_DISK_FULL', exitCode: 1, file: p.stateFile });
    const sentence = (reason as Error).message;
    expect(sentence).toContain(`state database ${p.stateFile}`);
    expect(sentence).toContain('SQLITE_FULL');
    expect(sentence).toContain(`free space on the disk holding ${path.dirname(p.stateFile)}`);
    expect(
      p
        .log()
        .filter((l) => l.level === 60)
        .map((l) => l.msg),
    ).toEqual([sentence]);
    expect(p.log().at(-1)?.msg).toBe('docsync daemon stopped');
    expectLockFree(p.stateFile);
  });

  it('answers /healthz 503 with the reason while the daemon finishes the work in flight, then stops', async () => {
    const p = await prepare(
      {
        webhook: { enabled: true, listen: '127.0.0.1:0', clientCode: CLIENT_CODE, secret: SECRET },
        status: { enabled: true, listen: '127.0.0.1:0' },
      },
      // Small: the cycle held up by the slow service must end well within the test's time.
      SMALL_FIRM,
    );
    const { daemon, app } = createDaemon(capturedTerminal().terminal, {
      config: p.config,
      logDestination: p.logDestination,
    });
    daemons.push(daemon);
    await daemon.start();
    const urlOf = (msg: string) => p.log().find((l) => l.msg === msg && l.url)?.url;
    const healthz = `${urlOf('status page listening')}/healthz`;
    await firstSyncDone(healthz);

    // Work in flight while the disk fills up: a cycle waiting on a slow service, and a person's
    // decision under a company's lock, which lasts until the test has looked (the stop waits for
    // both, however long this machine takes to post and fetch).
    p.sim.admin.setFaults({ latencyMs: 3000 });
    const [company] = (await p.sim.admin.dump()).companies;
    let decided!: () => void;
    const decision = daemon.withEntity(
      { kind: 'company', id: String(company!.id) },
      "a person's decision",
      () => new Promise<void>((resolve) => (decided = resolve)),
    );
    void daemon.request({ trigger: 'cron' });
    fillDisk(app.state.db);
    // A webhook that needs room to be recorded is where the daemon finds out.
    const tenants = Array.from({ length: 1200 }, (_, i) => ({
      tenantId: 9_000_000 + i,
      tenantType: 'documentId',
    }));
    const message = documentChange({ tenants });
    expect(JSON.stringify(message).length).toBeLessThan(MAX_BODY_BYTES);
    const hook = await postWebhook(urlOf('webhook receiver listening')!, message);
    expect(hook.status).toBe(500);

    const health = await fetch(healthz);
    expect(health.status).toBe(503);
    const body = (await health.json()) as { status: string; reasons: string[] };
    expect(body.status).toBe('unhealthy');
    expect(body.reasons[0]).toContain(`state database ${p.stateFile}`);
    expect(body.reasons[0]).toContain('SQLITE_FULL');

    decided();
    await decision;
    const reason = await stoppedWithin(daemon, 15_000);
    expect(reason).toMatchObject({ code: 'STATE_DISK_FULL', message: body.reasons[0] });
    await expect(fetch(healthz)).rejects.toThrow();
    expectLockFree(p.stateFile);
  });

  it('makes run --once whose state write fails mid-run end with the sentence and exit code 1', async () => {
    const p = await prepare();
    const { terminal } = capturedTerminal();
    const app = openApp(terminal, { config: p.config, logDestination: p.logDestination });
    try {
      fillDisk(app.state.db);
      const run = runOnceIn(app, {}, { terminal, progress: false });
      await expect(run).rejects.toMatchObject({ code: 'STATE_DISK_FULL', exitCode: 1 });
      await expect(run).rejects.toThrow(/^docsync cannot write its state database .*free space/);
    } finally {
      app.close();
    }
    expectLockFree(p.stateFile);
  });
});

const DAMAGES = [
  {
    name: 'is not a database at all',
    damage: (file: string) =>
      writeFileSync(file, 'these are not the bytes of a database\n'.repeat(200)),
  },
  { name: 'was cut short', damage: (file: string) => truncateSync(file, 8192) },
  {
    name: 'has garbage over its tables',
    damage: (file: string) => {
      const bytes = readFileSync(file);
      const from = Math.floor(bytes.length / 2 / 4096) * 4096;
      for (let i = from; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
      writeFileSync(file, bytes);
    },
  },
];

describe('a damaged state database', () => {
  it.each(DAMAGES)(
    'one that $name: run, run --once and status exit 1 with one sentence naming the file, no stack',
    async ({ damage }) => {
      const p = await prepare();
      const env = { DOCSYNC_REFRESH_TOKEN: p.sim.admin.mintRefreshToken() };
      const synced = await runCli(['run', '--once', '--config', p.config], { env });
      expect(synced.code).toBe(0);
      damage(p.stateFile);

      for (const args of [['run', '--once'], ['status'], ['run']]) {
        const { code, stderr } = await runCli([...args, '--config', p.config], { env });
        expect({ args, code }).toEqual({ args, code: 1 });
        expect(stderr).not.toMatch(/^\s+at /m);
        const lines = stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          new RegExp(
            `^docsync: The state database ${p.stateFile} is damaged \\(SQLITE_(CORRUPT|NOTADB)`,
          ),
        );
        expect(lines[0]).toContain('move it aside');
        expect(lines[0]).toContain(`\`${advisedCommand(p.config, 'auth login')}\``);
      }
    },
  );
});
