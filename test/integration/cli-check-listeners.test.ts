/**
 * What `docsync check` says of the daemon's own doors and of a mistyped key, as an operator runs
 * it (the command line, in this process) against the simulator on port 0:
 * - `status.listen`: free (taken for a moment and let go), held by the running daemon of this
 *   configuration (its status page answers there: fine), or held by another program (a fail:
 *   the daemon could not start);
 * - the webhook's signature: a message signed as the service signs passes the receiver's check,
 *   or it cannot (a client code the Authorization header cannot carry), or there is nothing to
 *   sign with (listed as not tried);
 * - a misspelt key: named with the key it most likely meant.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckLine } from '../../src/domain/check-lines.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { freePort } from '../helpers/free-port.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const sims: Simulator[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

async function setup(sections: Record<string, unknown>) {
  const sim = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0 });
  sims.push(sim);
  const config = writeCliConfig(tempDir(), sim, sections);
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const check = async () => {
    const result = await runCli(['check', '--json', '--config', config], {
      env,
      timeoutMs: 30_000,
    });
    const report = JSON.parse(result.stdout) as { lines: CheckLine[] };
    return { ...result, line: (topic: string) => report.lines.find((l) => l.topic === topic) };
  };
  return { sim, config, env, check };
}

/** Something that is not docsync, holding a port. */
async function holdPort(port: number): Promise<void> {
  const server = createServer((socket) => socket.end('not http\n'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
}

describe('docsync check: status.listen', () => {
  it('free: taken for a moment and let go; held by another program: a fail, exit 1', async () => {
    const port = await freePort();
    const { check } = await setup({ status: { enabled: true, listen: `127.0.0.1:${port}` } });

    const free = await check();
    expect(free.line('status listen')).toMatchObject({
      result: 'ok',
      message: `127.0.0.1:${port} is free for the status page (taken for a moment and let go)`,
    });
    expect(free.code).toBe(0);

    await holdPort(port);
    const taken = await check();
    expect(taken.line('status listen')).toMatchObject({
      result: 'fail',
      message: `127.0.0.1:${port} is in use by another program: the daemon could not open its status page there`,
      hint: expect.stringContaining('set status.listen to a free address'),
    });
    expect(taken.code).toBe(1);
  });

  it('held by the running daemon of this configuration: said, not failed', async () => {
    const port = await freePort();
    const { config, env, check } = await setup({
      status: { enabled: true, listen: `127.0.0.1:${port}` },
    });
    const daemon = startDaemon(config, env);
    await daemon.started;

    const { line, code } = await check();

    expect(line('status listen')).toMatchObject({
      result: 'ok',
      message: expect.stringMatching(
        new RegExp(
          `^127\\.0\\.0\\.1:${port} is held by a running docsync: its status page answers there \\(/healthz: `,
        ),
      ),
    });
    expect(code).toBe(0);
  });
});

describe('docsync check: the webhook signature', () => {
  const hook = async (webhook: Record<string, unknown>) =>
    setup({ webhook: { listen: `127.0.0.1:${await freePort()}`, ...webhook } });

  it('a message signed as the service signs passes the receiver check, for the URL it covers', async () => {
    const { check } = await hook({ clientCode: 'FIRM', secret: 'hook-s3cret' });
    const { line, code, stdout } = await check();
    expect(line('webhook signature')).toMatchObject({
      result: 'ok',
      message: expect.stringMatching(
        /^a message signed as the service signs \(client code FIRM, webhook\.secret, for http:\/\/127\.0\.0\.1:\d+\/webhooks\/document-change\) passes the receiver's check/,
      ),
    });
    expect(stdout).not.toContain('hook-s3cret');
    expect(code).toBe(0);
  });

  it('a client code no Authorization header can carry fails it', async () => {
    const { check } = await hook({ clientCode: 'ACME FIRM', secret: 'hook-s3cret' });
    const { line, code } = await check();
    expect(line('webhook signature')).toMatchObject({
      result: 'fail',
      message: expect.stringContaining(
        'a message signed with webhook.secret and client code "ACME FIRM" does not pass the receiver\'s check',
      ),
    });
    expect(code).toBe(1);
  });

  it('nothing to sign with (unsigned messages allowed): listed as not tried, with why', async () => {
    const { check } = await hook({ allowUnsigned: true });
    const { line } = await check();
    expect(line('webhook signature')).toMatchObject({
      result: 'untried',
      message: expect.stringContaining('not tried: no webhook.secret to sign with'),
    });
  });
});

describe('a misspelt key', () => {
  it('is named with the key it most likely meant, by check and by run', async () => {
    const { config, env } = await setup({ schedule: { corn: '*/5 * * * *' } });
    for (const command of [['check'], ['run', '--once']]) {
      const result = await runCli([...command, '--config', config], { env });
      expect(result.code).toBe(1);
      expect(`${result.stdout}${result.stderr}`).toContain(
        'schedule.corn: unknown key; did you mean "cron"?',
      );
    }
  });
});
