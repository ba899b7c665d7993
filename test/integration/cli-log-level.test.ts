/**
 * `--log-level`, `-v` and `-q` on the command line set the log's level over the configuration's
 * `log.level`, for every command: what a real `run --once` writes to its log shows it.
 */
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

const FIRM = { companies: 1, trusts: 1, documentsPerEntity: 1, attachmentsPerDocument: 1, seed: 3 };

describe('the log level on the command line', () => {
  it('overrides log.level: -q, -v, -vv, --log-level, placed before or after the command', async () => {
    const sim = await startSim({ seed: FIRM });
    const config = writeCliConfig(tempDir(), sim, { log: { level: 'info' } });
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const levelsOf = async (args: string[]) => {
      const { code, stdout } = await runCli([...args, '--config', config], { env });
      expect(code).toBe(0);
      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      return { levels: new Set(lines.map((l) => l.level)), messages: lines.map((l) => l.msg) };
    };

    const asConfigured = await levelsOf(['run', '--once']);
    expect(asConfigured.levels).toEqual(new Set([30]));

    const quiet = await levelsOf(['-q', 'run', '--once']);
    expect(quiet.messages).toEqual([]);

    const verbose = await levelsOf(['run', '--once', '-v']);
    expect(verbose.levels).toEqual(new Set([20, 30]));
    expect(verbose.messages).toContain('cycle started');

    const veryVerbose = await levelsOf(['run', '--once', '-vv']);
    expect(veryVerbose.messages).toContain('service answered');

    const debug = await levelsOf(['--log-level', 'debug', '--once']);
    expect(debug.levels).toEqual(new Set([20, 30]));
  });

  it('refuses an unknown level and two flags that disagree', async () => {
    const unknown = await runCli(['--log-level', 'loud', 'status']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      "argument 'loud' is invalid. Allowed choices are fatal, error",
    );
    const both = await runCli(['status', '-v', '-q']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain(
      "option '-v, --verbose' cannot be used with option '-q, --quiet'",
    );
  });
});
