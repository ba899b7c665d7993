/**
 * `docsync run --once` stopped by SIGTERM (issue 16; `systemctl stop` sends it): it starts
 * nothing new, exits 4 within seconds, and `docsync status` shows the run as interrupted, not
 * running; the next run takes up the rest and ends in sync. A real child process: the signal and
 * the exit are the point. SIGINT takes the same path, with what Ctrl-C adds (once-ctrl-c.test.ts).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually } from '../helpers/daemon-process.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { served } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

/** Every list of an entity's documents answers after a minute: the run is in them when it stops. */
const SLOW_LISTS = {
  routeLatencyMs: {
    '/companies/{ownerId}/documents': 60_000,
    '/trusts/{ownerId}/documents': 60_000,
  },
};

/** A child's start, its run and the next one, on a busy machine. */
const CHILD_TEST_MS = 60_000;

describe('docsync run --once stopped by a signal', { timeout: CHILD_TEST_MS }, () => {
  it('on SIGTERM: exits 4 within seconds, recorded as interrupted; the next run finishes', async () => {
    const sim = await startSim({
      rateLimitPerSecond: 0,
      seed: { companies: 2, trusts: 1, documentsPerEntity: 1, attachmentsPerDocument: 1 },
      faults: SLOW_LISTS,
    });
    const dir = tempDir();
    const env = { ...process.env, DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const config = writeCliConfig(dir, sim);
    const child = spawn(process.execPath, [CLI, 'run', '--once', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // The entities are listed: their documents are being asked for.
    await eventually(() => served(sim, /^GET \S*\/trusts 200$/) > 0, 30_000);
    const stopAt = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    expect(code, stderr).toBe(4);
    // Within seconds, with room for a busy machine: the lists the run was waiting for take a
    // minute, so a run that waited for them would still be running.
    expect(Date.now() - stopAt).toBeLessThan(10_000);
    expect(stderr).toContain('SIGTERM: stopping now');
    expect(stderr).toContain('the next run takes up the rest');

    const status = await runCli(['status', '--json', '--config', config], { env });
    expect(JSON.parse(status.stdout).lastCycle.result).toBe('interrupted');

    sim.admin.setFaults({});
    const again = await runCli(['run', '--once', '--config', config], { env });
    expect(again.code, again.stderr).toBe(0);
  });
});
