/**
 * A state database of an older docsync, as the commands meet it after an upgrade while the old
 * daemon may still run on it: every command but `run` leaves it exactly as it is and says, in
 * one sentence, to start this version's daemon (or `--once`) first; `run --once` upgrades it,
 * and then the commands work. (A missing one: cli-failures.test.ts, cli-check.test.ts.) The
 * command line in this process on a captured terminal, a real SQLite file, the simulator on port
 * 0 (unthrottled: the upgrading run is not about the rate).
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/state/migrations.js';
import { openDatabase } from '../../src/state/open-database.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { advisedCommand, runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

const KNOWN = MIGRATIONS.at(-1)!.version;

function versionOf(file: string): number {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

describe('a state database older than this docsync', () => {
  it('is refused as it is by every command that reads it or records a decision; run --once upgrades it', async () => {
    const sim = await startSim({ seed: 'demo', rateLimitPerSecond: 0 });
    const dir = tempDir();
    const config = writeCliConfig(dir, sim);
    const statePath = path.join(dir, 'state', 'docsync.db');
    openDatabase(statePath, { migrations: MIGRATIONS.slice(0, -1) }).close();
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const commands = [
      ['status'],
      ['status', '--json'],
      ['open', 'company', 'Acme'],
      ['conflicts'],
      ['conflicts', 'resolve', '1', 'keep-both'],
      ['trash'],
      ['deletes'],
      ['deletes', 'approve', '--all'],
      ['deletes', 'discard', 'some-document'],
      ['api', 'companies', 'list'],
      ['auth', 'login', '--code', 'a-code'],
    ];

    for (const args of commands) {
      const result = await runCli([...args, '--config', config], { env });
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 1,
        stderr:
          `docsync: The state database ${statePath} (state.path) has schema version ${KNOWN - 1}, ` +
          `older than this docsync's ${KNOWN}, and this command never upgrades it (the previous ` +
          "version's daemon may still be using it): stop that daemon and start this version's " +
          // The commands it names, for this configuration, as they run here.
          `(\`${advisedCommand(config, 'run')}\`, or run \`${advisedCommand(config, 'run --once')}\`), which upgrades it, then run this command again.\n`,
      });
    }
    expect(versionOf(statePath)).toBe(KNOWN - 1);

    const once = await runCli(['run', '--once', '--config', config], { env, timeoutMs: 60_000 });
    expect(once.code).toBe(0);
    expect(versionOf(statePath)).toBe(KNOWN);
    const status = await runCli(['status', '--json', '--config', config], { env });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ initialSyncDone: true });
  });
});
