/**
 * `docsync run --once` stopped by SIGTERM or SIGINT (issue 16): it finishes the documents in
 * flight, starts nothing new, exits 4 within seconds, and `docsync status` shows the run as
 * interrupted, not running; the next run takes up the rest and ends in sync.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually } from '../helpers/daemon-process.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

describe('docsync run --once stopped by a signal', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s: exits 4 within seconds, recorded as interrupted; the next run finishes',
    async (signal) => {
      const sim = await startSim({
        rateLimitPerSecond: 0,
        seed: {
          companies: 60,
          trusts: 20,
          documentsPerEntity: 1,
          attachmentsPerDocument: 1,
          attachmentBytes: 200,
        },
      });
      const dir = tempDir();
      const env = { ...process.env, DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
      // 80 entities at 5 requests a second: the first sync takes about a minute.
      const config = writeCliConfig(dir, sim, { queue: { requestsPerSecond: 5, concurrency: 2 } });
      const child = spawn(process.execPath, [CLI, 'run', '--once', '--config', config], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      await eventually(() => sim.admin.counters().api.total > 10);
      const stopAt = Date.now();
      child.kill(signal);
      const code = await exited;
      expect(code, stderr).toBe(4);
      expect(Date.now() - stopAt).toBeLessThan(5_000);
      expect(stderr).toContain('the next run takes up the rest');

      const status = await runCli(['status', '--json', '--config', config], { env });
      expect(JSON.parse(status.stdout).lastCycle.result).toBe('interrupted');

      const fast = writeCliConfig(dir, sim, { queue: { requestsPerSecond: 1000, concurrency: 8 } });
      const again = await runCli(['run', '--once', '--config', fast], { env, timeoutMs: 30_000 });
      expect(again.code, again.stderr).toBe(0);
    },
    40_000,
  );
});
