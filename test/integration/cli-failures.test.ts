/**
 * Every failure an operator can expect ends the command with one sentence on stderr that names
 * the key or the path and what to do, and exit 1: no stack, no bare `ENOTDIR`. Each case is the
 * command line (in this process on a captured terminal; as another user, in a child process) with
 * a configuration made to fail that way; the unreachable service is the run's handler on the app
 * it opens, so its retries are counted rather than waited out. (A damaged state database:
 * state-failure.test.ts.)
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failureSentence } from '../../src/commands/failure-sentence.js';
import { runOnceIn } from '../../src/commands/run-command.js';
import { openApp } from '../../src/compose.js';
import { DocsyncError } from '../../src/domain/errors.js';
import { DEFAULT_RETRY_POLICY } from '../../src/remote/retry-delay.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { advisedCommand, type CliResult, capturedTerminal, runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { TestClock } from '../helpers/test-clock.js';

const tempDir = useTempDir();
const startSim = useSimulators();
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** Exit 1 and one line on stderr, no stack; returns that line without `docsync: `. */
function sentenceOf(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 1 });
  expect(result.stderr).not.toMatch(/^\s+at /m);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^docsync: /);
  return lines[0]!.slice('docsync: '.length);
}

async function setup(overrides: Record<string, unknown> = {}) {
  // Unthrottled: every case fails before the rate could matter.
  const sim = await startSim({ seed: 'demo', rateLimitPerSecond: 0 });
  const dir = tempDir();
  const config = writeCliConfig(dir, sim, overrides);
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  return { sim, dir, config, env };
}

/** A port some other program holds. */
async function portInUse(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('an expected failure is one sentence and exit 1', () => {
  it('store.root is a file: run --once and the daemon say so, and nothing is written', async () => {
    const { dir, config, env } = await setup();
    const root = path.join(dir, 'documents');
    writeFileSync(root, 'not a folder');
    for (const args of [['run', '--once'], ['run']]) {
      const line = sentenceOf(await runCli([...args, '--config', config], { env }));
      expect(line).toBe(
        `store.root ${root} is a file, not a folder; set store.root to the folder the documents go in (docsync makes it when it does not exist yet).`,
      );
    }
  });

  it('store.root under a file (ENOTDIR)', async () => {
    const { sim, dir, env } = await setup();
    writeFileSync(path.join(dir, 'a-file'), '');
    const root = path.join(dir, 'a-file', 'documents');
    const config = writeCliConfig(dir, sim, { store: { root } });
    const line = sentenceOf(await runCli(['run', '--once', '--config', config], { env }));
    expect(line).toMatch(
      new RegExp(
        `^store\\.root ${root} cannot be a folder: a part of that path is a file \\(ENOTDIR`,
      ),
    );
    expect(line).toContain('set store.root to a folder path.');
  });

  it('store.root and state.path that the user docsync runs as may not write (EACCES)', async () => {
    const { sim, dir, env } = await setup();
    // Root passes every permission check: run as nobody then, as a service user would be.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    chmodSync(dir, 0o755);
    const locked = path.join(dir, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    mkdirSync(path.join(dir, 'state'), { mode: 0o777 });
    chmodSync(path.join(dir, 'state'), 0o777);
    const stateFile = path.join(locked, 'state', 'docsync.db');
    const badState = writeCliConfig(dir, sim, { state: { path: stateFile } });
    chmodSync(badState, 0o644);
    const state = sentenceOf(
      await runCli(['run', '--once', '--config', badState], { env, ...(user ? { user } : {}) }),
    );
    expect(state).toMatch(
      new RegExp(`^docsync cannot write its state database ${stateFile} \\(state\\.path; EACCES`),
    );
    expect(state).toContain('or set state.path to a place it can write');
    expect(existsSync(path.dirname(stateFile))).toBe(false);

    const root = path.join(locked, 'documents');
    const badRoot = writeCliConfig(dir, sim, {
      store: { root },
      state: { path: path.join(dir, 'state', 'docsync.db') },
    });
    chmodSync(badRoot, 0o644);
    const store = sentenceOf(
      await runCli(['run', '--once', '--config', badRoot], { env, ...(user ? { user } : {}) }),
    );
    expect(store).toMatch(
      new RegExp(`^docsync may not read and write store\\.root ${root} \\(EACCES`),
    );
  });

  it('state.path under a file (EEXIST from mkdir)', async () => {
    const { sim, dir, env } = await setup();
    writeFileSync(path.join(dir, 'a-file'), '');
    const stateFile = path.join(dir, 'a-file', 'docsync.db');
    const config = writeCliConfig(dir, sim, { state: { path: stateFile } });
    const line = sentenceOf(await runCli(['run', '--once', '--config', config], { env }));
    expect(line).toMatch(
      new RegExp(`^docsync cannot make its state database ${stateFile} \\(state\\.path; EEXIST`),
    );
    expect(line).toContain('set state.path to a file in a folder docsync may write');
  });

  it.each([
    [
      'webhook.listen',
      (port: number) => ({
        webhook: { enabled: true, listen: `127.0.0.1:${port}`, clientCode: 'FIRM1', secret: 's' },
      }),
    ],
    [
      'status.listen',
      (port: number) => ({ status: { enabled: true, listen: `127.0.0.1:${port}` } }),
    ],
  ])('%s in use by another program (EADDRINUSE)', async (key, overrides) => {
    const port = await portInUse();
    const { config, env } = await setup(overrides(port));
    const line = sentenceOf(await runCli(['run', '--config', config], { env }));
    expect(line).toMatch(
      new RegExp(
        `^${key.replace('.', '\\.')}: 127\\.0\\.0\\.1:${port} is already in use by another program \\(EADDRINUSE`,
      ),
    );
    expect(line).toContain(`or set ${key} to a free port`);
  });

  it('the service unreachable names service.baseUrl, once the refused connection was retried with backoff', async () => {
    const { sim, dir, env } = await setup();
    const port = await portInUse();
    servers.pop()!.close(); // a port nothing listens on
    const config = writeCliConfig(dir, sim, {
      service: {
        baseUrl: `http://127.0.0.1:${port}`,
        webUrl: sim.webUrl,
        clientId: sim.clientId,
        clientSecret: sim.clientSecret,
      },
    });
    // `run --once` on the app it opens, on a clock whose waits end at once and say how long they
    // were (in real time the retries took ~12 s); what reaches main() is the error its sentence
    // is made of.
    const clock = new TestClock({ autoAdvance: true });
    const { terminal, stderr } = capturedTerminal({ env });
    const app = openApp(terminal, { config, clientClock: clock });
    const error = await runOnceIn(app, { once: true }, { terminal, progress: false })
      .catch((e: unknown) => e)
      .finally(() => app.close());

    expect(error).toBeInstanceOf(DocsyncError);
    expect((error as DocsyncError).exitCode).toBe(1);
    const line = failureSentence(error as DocsyncError);
    expect(line).toMatch(/^docsync cannot reach the service \(POST \/oauth\/token: .*ECONNREFUSED/);
    expect(line).toContain(
      '. Check that this machine can reach the service (DNS, proxy, firewall) and that service.baseUrl (or service.environment) names it.',
    );
    expect(line).not.toContain('\n');
    expect(stderr.text()).toBe('');
    // As a passing outage would be: every attempt of the policy, each wait about twice the last
    // (half of the ceiling fixed, half random).
    const { maxAttempts, baseDelayMs, maxDelayMs } = DEFAULT_RETRY_POLICY;
    const waits = clock.waits;
    expect(waits).toHaveLength(maxAttempts - 1);
    waits.forEach((ms, i) => {
      const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** i);
      expect(ms, `wait ${i + 1}`).toBeGreaterThanOrEqual(ceiling / 2);
      expect(ms, `wait ${i + 1}`).toBeLessThanOrEqual(ceiling);
    });
  });

  it('authentication refused: a dead grant asks for a login, wrong client credentials name their keys', async () => {
    const { sim, dir, config } = await setup();
    const grant = sentenceOf(
      await runCli(['run', '--once', '--config', config], {
        env: { DOCSYNC_REFRESH_TOKEN: 'revoked-long-ago' },
      }),
    );
    expect(grant).toMatch(
      /^The service refused docsync's authorisation \(400 invalid_grant on refresh_token[:)]/,
    );
    expect(grant).toContain(`Run \`${advisedCommand(config, 'auth login')}\``);

    const wrongSecret = writeCliConfig(dir, sim, {
      service: {
        baseUrl: sim.apiUrl,
        webUrl: sim.webUrl,
        clientId: sim.clientId,
        clientSecret: 'not-the-secret',
      },
      state: { path: path.join(dir, 'other-state', 'docsync.db') },
    });
    const client = sentenceOf(
      await runCli(['run', '--once', '--config', wrongSecret], {
        env: { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() },
      }),
    );
    expect(client).toMatch(
      /^The service refused docsync's client credentials \(401 invalid_client on refresh_token[:)].*\. Check service\.clientId and service\.clientSecret \(or DOCSYNC_CLIENT_SECRET\): they must be those of the application registered with the service; and service\.clientAuth/,
    );
  });

  it("the example's placeholders left in are listed with their keys", async () => {
    const dir = tempDir();
    const config = path.join(dir, 'docsync.json');
    copyFileSync(path.resolve(import.meta.dirname, '../../config/docsync.example.json'), config);
    const { code, stderr } = await runCli(['status', '--config', config], {
      env: { DOCSYNC_CLIENT_SECRET: '', DOCSYNC_WEBHOOK_SECRET: '' },
    });
    expect(code).toBe(1);
    expect(stderr).toContain(`Invalid configuration (${config}):`);
    for (const key of [
      'service.clientId',
      'service.clientSecret',
      'webhook.clientCode',
      'webhook.secret',
    ])
      expect(stderr).toMatch(new RegExp(`^  - ${key}: ".+" is the example's placeholder: `, 'm'));
  });

  it('status, open and the operator commands with a mistyped state.path say the file does not exist, and create nothing', async () => {
    const { sim, dir, env } = await setup();
    const typo = path.join(dir, 'stat', 'docsync.db');
    const config = writeCliConfig(dir, sim, { state: { path: typo } });
    for (const args of [
      ['status'],
      ['open', 'company', 'Acme'],
      ['deletes', 'list'],
      ['deletes', 'approve', '--all'],
      ['conflicts', 'list'],
      ['trash', 'list'],
    ]) {
      const line = sentenceOf(await runCli([...args, '--config', config], { env }));
      expect(line, args.join(' ')).toBe(
        `The state database ${typo} (state.path) does not exist, and this command never creates one: check state.path in the configuration, or, on a new install, run \`${advisedCommand(config, 'auth login')}\` and \`${advisedCommand(config, 'run --once')}\` first.`,
      );
      expect(existsSync(path.join(dir, 'stat'))).toBe(false);
    }
  });
});
