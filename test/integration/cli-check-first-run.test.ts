/**
 * `docsync check` in the README's order, authorise → check → first run (issue 27 case 3), and
 * how it words a configuration (case 10): the command line, in this process on a captured
 * terminal, against the simulator on port 0 (unthrottled: the rate is not what is checked).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckLine } from '../../src/domain/check-lines.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

async function simulated(overrides: Record<string, unknown> = {}) {
  const sim = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0 });
  sims.push(sim);
  const dir = tempDir();
  return { sim, dir, config: writeCliConfig(dir, sim, overrides) };
}

describe('docsync check before the first run', () => {
  it('case 3: with DOCSYNC_REFRESH_TOKEN and no state database yet, passes, and the first run works with that same token', async () => {
    const { sim, dir, config } = await simulated();
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };

    const check = await runCli(['check', '--json', '--config', config], {
      env,
      timeoutMs: 30_000,
    });

    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    const lines = (JSON.parse(check.stdout) as { lines: CheckLine[] }).lines;
    expect(lines.find((l) => l.topic === 'state database')).toMatchObject({
      result: 'ok',
      message: expect.stringContaining('did not exist: made it to keep the login'),
    });
    expect(lines.find((l) => l.topic === 'token')?.result).toBe('ok');
    expect(lines.filter((l) => l.result === 'fail')).toEqual([]);
    // The service replaced the token when check used it; the run goes on with the kept one.
    const run = await runCli(['run', '--once', '--json', '--config', config], {
      env,
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ result: 'ok', errors: 0 });
    expect(existsSync(path.join(dir, 'documents', 'Companies'))).toBe(true);
  }, 90_000);
});

describe('docsync check on the configuration', () => {
  it('case 10: lists each problem on its own line, as docsync run does', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'docsync.json');
    writeFileSync(
      config,
      JSON.stringify({
        service: {
          environment: 'staging',
          clientId: 'your-client-id',
          clientSecret: 'set DOCSYNC_CLIENT_SECRET instead of writing it here',
        },
        store: { root: path.join(dir, 'documents') },
        webhook: { enabled: false },
      }),
    );

    const check = await runCli(['check', '--config', config]);
    const run = await runCli(['run', '--once', '--config', config]);

    expect(check.code).toBe(1);
    const listed = run.stderr.split('\n').filter((l) => l.startsWith('  - '));
    expect(listed).toHaveLength(2);
    for (const problem of listed) {
      expect(check.stdout).toContain(`\n      ${problem.trim()}\n`);
    }
    expect(check.stdout).not.toMatch(/placeholder[^\n]*; service\./);
  });

  it('case 10: does not name an environment whose URLs the file overrides', async () => {
    const { sim, config } = await simulated({ status: { enabled: false } });
    const file = JSON.parse(readFileSync(config, 'utf8')) as { service: Record<string, unknown> };
    file.service.environment = 'staging';
    writeFileSync(config, JSON.stringify(file));

    const check = await runCli(['check', '--json', '--config', config], { timeoutMs: 30_000 });

    const line = (JSON.parse(check.stdout) as { lines: CheckLine[] }).lines[0]!;
    expect(line.topic).toBe('configuration');
    expect(line.message).toContain(`the service is ${sim.apiUrl} (web ${sim.webUrl})`);
    expect(line.message).not.toContain('staging,');
    expect(line.message).toContain(
      'service.environment "staging" is not used: service.baseUrl and service.webUrl override it',
    );
  });
});
