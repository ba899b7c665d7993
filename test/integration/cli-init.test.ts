/**
 * `docsync init` from a script (no terminal: flags only), with the built CLI: what it writes
 * for the real service, that what it writes loads as it is, that it never overwrites, and that
 * a script that leaves something open gets one sentence naming the flags. The simulator's case
 * runs end to end in cli-first-steps.test.ts; the questions at a terminal in
 * unit/init-answers.test.ts.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

const mode = (file: string) => statSync(file).mode & 0o7777;

describe('docsync init', () => {
  it('writes a configuration for staging with absolute paths, and the secrets beside it, which loads as written', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'etc', 'docsync.json');

    const init = await runCli(
      [
        'init',
        '--for',
        'staging',
        '--config',
        config,
        '--client-id',
        'firm-client',
        '--webhook',
        '--client-code',
        'firmcode',
        '--store',
        'documents',
      ],
      { cwd: dir, env: { DOCSYNC_CLIENT_SECRET: 'from-the-registration' } },
    );

    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const written = JSON.parse(readFileSync(config, 'utf8'));
    expect(written).toEqual({
      service: { environment: 'staging', clientId: 'firm-client' },
      store: { root: path.join(dir, 'documents') },
      state: { path: path.join(dir, 'state', 'docsync.db') },
      webhook: { enabled: true, listen: '127.0.0.1:8787', clientCode: 'firmcode' },
      status: { enabled: true, listen: '127.0.0.1:8788' },
    });
    const envFile = path.join(dir, 'etc', 'docsync.env');
    const secrets = readFileSync(envFile, 'utf8');
    expect(secrets).toContain('DOCSYNC_CLIENT_SECRET=from-the-registration\n');
    const webhookSecret = /^DOCSYNC_WEBHOOK_SECRET=(\S+)$/m.exec(secrets)?.[1];
    expect(webhookSecret).toMatch(/^[\w-]{43}$/);
    expect(mode(envFile)).toBe(0o600);
    expect(mode(config)).toBe(0o644);
    expect(JSON.stringify(written)).not.toContain(webhookSecret);
    // As any command reads it: the secrets from the file beside, nothing from the environment.
    const loaded = loadConfig({ path: config, env: {}, cwd: '/' });
    expect(loaded.service.baseUrl).toBe('https://api.staging.bgl360.com.au');
    expect(loaded.service.clientSecret).toBe('from-the-registration');
    expect(loaded.webhook.secret).toBe(webhookSecret);
    // What to run next, with this file named (docsync would not find it by itself from here).
    expect(init.stdout).toContain(`--config ${config} auth login`);
    expect(init.stdout).toContain(`--config ${config} check`);
    expect(init.stdout).toContain('Register the webhook with the service');
  });

  it('as root for the daemon’s user: makes the state folder and the store theirs, the secrets readable by their group', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'etc', 'docsync.json');
    const store = path.join(dir, 'srv', 'documents', 'firm');
    const state = path.join(dir, 'var', 'lib', 'docsync', 'state', 'docsync.db');
    const nobody = readFileSync('/etc/passwd', 'utf8').match(/^nobody:[^:]*:(\d+):(\d+):/m);
    expect(process.getuid?.(), 'this test runs as root, as the suite does').toBe(0);
    expect(nobody, 'a user named nobody').not.toBeNull();

    const init = await runCli(
      [
        'init',
        '--for',
        'production',
        '--config',
        config,
        '--client-id',
        'id',
        '--no-webhook',
        '--store',
        store,
        '--state',
        state,
        '--user',
        'nobody',
      ],
      { cwd: dir, env: { DOCSYNC_CLIENT_SECRET: '' } },
    );

    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const [uid, gid] = [Number(nobody![1]), Number(nobody![2])];
    expect(statSync(store)).toMatchObject({ uid, gid });
    expect(mode(store)).toBe(0o2770);
    expect(statSync(path.dirname(state))).toMatchObject({ uid, gid });
    expect(mode(path.dirname(state))).toBe(0o700);
    const envFile = path.join(dir, 'etc', 'docsync.env');
    expect(statSync(envFile)).toMatchObject({ uid: 0, gid });
    expect(mode(envFile)).toBe(0o640);
    // No secret given: the file says where it goes, and so does the advice, first.
    expect(readFileSync(envFile, 'utf8')).toMatch(/\nDOCSYNC_CLIENT_SECRET=\n/);
    expect(init.stdout).toMatch(
      /Next:\n {2}Write the client secret of the production registration into /,
    );
    expect(JSON.parse(readFileSync(config, 'utf8')).webhook).toEqual({ enabled: false });
  });

  it('never overwrites a file that is there, and writes nothing then', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'etc'));
    const config = path.join(dir, 'etc', 'docsync.json');
    writeFileSync(path.join(dir, 'etc', 'docsync.env'), 'DOCSYNC_CLIENT_SECRET=keep me\n');

    const init = await runCli(
      ['init', '--for', 'staging', '--config', config, '--client-id', 'x', '--no-webhook'],
      { cwd: dir },
    );

    expect(init.code).toBe(1);
    expect(init.stderr).toBe(
      `docsync: ${path.join(dir, 'etc', 'docsync.env')} is already there, and docsync init never overwrites a file: keep it (docsync reads it), move it aside, or write elsewhere with --config FILE.\n`,
    );
    expect(existsSync(config)).toBe(false);
    expect(readFileSync(path.join(dir, 'etc', 'docsync.env'), 'utf8')).toBe(
      'DOCSYNC_CLIENT_SECRET=keep me\n',
    );
  });

  it('asks nothing of a script: what it leaves open is one sentence naming the flags', async () => {
    const dir = tempDir();

    const none = await runCli(['init'], { cwd: dir });
    const partial = await runCli(['init', '--for', 'production', '--webhook'], { cwd: dir });

    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'docsync: docsync init asks at a terminal; without one, say it with --for simulator|staging|production (docsync init --help).\n',
    );
    expect(partial.code).toBe(1);
    expect(partial.stderr).toBe(
      'docsync: docsync init asks at a terminal; without one, say it with --client-id <id>, --client-code <code> (or --no-webhook) (docsync init --help).\n',
    );
    expect(existsSync(path.join(dir, 'config'))).toBe(false);
  });

  it('for the simulator, says how to start it when none answers, and writes nothing', async () => {
    const dir = tempDir();

    const init = await runCli(
      ['init', '--for', 'simulator', '--simulator-url', 'http://127.0.0.1:1'],
      { cwd: dir, timeoutMs: 30_000 },
    );

    expect(init.code).toBe(1);
    expect(init.stderr).toMatch(
      /^docsync: No simulator answers at http:\/\/127\.0\.0\.1:1 \(.*ECONNREFUSED.*\)\. Start it first, in another terminal: .* simulator --seed demo; or name where it runs with --simulator-url\.\n$/,
    );
    expect(existsSync(path.join(dir, 'config'))).toBe(false);
  });

  it('names a bad address by its key before writing anything', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'docsync.json');

    const init = await runCli(
      ['init', '--for', 'staging', '--config', config, '--client-id', 'x', '--no-webhook'].concat([
        '--status-listen',
        'localhost',
      ]),
      { cwd: dir },
    );

    expect(init.code).toBe(1);
    expect(init.stderr).toContain('status.listen: expected host:port');
    expect(existsSync(config)).toBe(false);
  });
});
