/**
 * A state database that cannot be written or read, as an operator meets it. "Disk full" is real:
 * SQLite's `max_page_count` on the daemon's own connection, at the pages the file has, makes the
 * next write that needs a page fail with SQLITE_FULL, as a full disk does. A damaged file is real
 * bytes: not a database at all, cut short, or garbage over its tables.
 */
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runOnceIn } from '../../src/commands/run-command.js';
import { openApp } from '../../src/main.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { InstanceLock } from '../../src/state/instance-lock.js';
import type { Database } from '../../src/state/open-database.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

// Big enough that its first sync needs more pages than a new state file has.
const FIRM = { companies: 6, trusts: 6, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 5 };
const NEVER = { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' };

/** A store for `sim` whose state already holds a refresh token, so no environment is needed. */
async function prepare(overrides: Record<string, unknown> = {}) {
  sim = await startSimulator({ seed: FIRM, rateLimitPerSecond: 0 });
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
  it('makes run --once whose state write fails mid-run end with the sentence and exit code 1', async () => {
    const p = await prepare();
    const app = openApp({ config: p.config, logDestination: p.logDestination });
    try {
      fillDisk(app.state.db);
      const run = runOnceIn(app, {});
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
      const env = { DOCSYNC_REFRESH_TOKEN: sim!.admin.mintRefreshToken() };
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
        expect(lines[0]).toContain('`docsync auth login`');
      }
    },
  );
});
