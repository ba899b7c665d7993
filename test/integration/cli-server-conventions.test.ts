/**
 * Issue 27 case 5, as an operator meets it (the command line, in this process on a captured
 * terminal with its own working directory): a relative path in the
 * configuration is the configuration file's folder's (not the working directory's, which
 * differs between systemd, `sudo -u docsync` and a shell); the secrets are read from the
 * environment file beside the configuration by a command run by hand; a missing configuration
 * names `docsync init`.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { advisedCommand, runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

/** A configuration in `<dir>/etc/docsync.json` for a simulated firm, paths as given. */
async function setup(paths: { store: string; state?: string }, secretsBeside = false) {
  const sim = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0 });
  sims.push(sim);
  const dir = tempDir();
  const etc = path.join(dir, 'etc');
  mkdirSync(etc);
  const config = path.join(etc, 'docsync.json');
  const service: Record<string, unknown> = {
    baseUrl: sim.apiUrl,
    webUrl: sim.webUrl,
    clientId: sim.clientId,
    // As `docsync init --for simulator` lists it: its link host is plain http on loopback.
    linkHosts: [sim.linkUrl],
  };
  const token = sim.admin.mintRefreshToken();
  if (secretsBeside) {
    writeFileSync(
      path.join(etc, 'docsync.env'),
      `# as docsync init writes it\nDOCSYNC_CLIENT_SECRET=${sim.clientSecret}\nDOCSYNC_REFRESH_TOKEN=${token}\n`,
    );
  } else {
    service.clientSecret = sim.clientSecret;
  }
  writeFileSync(
    config,
    JSON.stringify({
      service,
      store: { root: paths.store },
      ...(paths.state ? { state: { path: paths.state } } : {}),
      webhook: { enabled: false },
      status: { enabled: false },
      log: { level: 'warn' },
      // Unthrottled, as writeCliConfig makes it: the runs here are about paths, not the rate.
      queue: { requestsPerSecond: 1000, concurrency: 4 },
    }),
  );
  const elsewhere = path.join(dir, 'elsewhere');
  mkdirSync(elsewhere);
  const env = { DOCSYNC_REFRESH_TOKEN: secretsBeside ? '' : token, DOCSYNC_CLIENT_SECRET: '' };
  return { dir, etc, config, elsewhere, env };
}

describe('server conventions', () => {
  it('resolves relative paths against the configuration file’s folder, wherever docsync runs from', async () => {
    const { etc, config, elsewhere, env } = await setup({
      store: 'documents',
      state: 'state/docsync.db',
    });

    const run = await runCli(['run', '--once', '--config', config], {
      cwd: elsewhere,
      env,
      timeoutMs: 60_000,
    });

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(existsSync(path.join(etc, 'state', 'docsync.db'))).toBe(true);
    expect(readdirSync(path.join(etc, 'documents'))).toContain('Companies');
    expect(readdirSync(elsewhere)).toEqual([]);
    const status = await runCli(['status', '--config', config], { cwd: '/', env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`docsync status (${path.join(etc, 'state', 'docsync.db')})`);
  }, 90_000);

  it('refuses a relative state.path that named a database from the working directory, and names the absolute one to write', async () => {
    const { etc, config, elsewhere, env } = await setup({ store: path.join(tempDir(), 'docs') });
    // Where a docsync that resolved from the working directory kept it (the default state.path).
    mkdirSync(path.join(elsewhere, 'state'));
    writeFileSync(path.join(elsewhere, 'state', 'docsync.db'), '');

    const run = await runCli(['run', '--once', '--config', config], { cwd: elsewhere, env });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `state.path: "state/docsync.db" is relative to the configuration file's folder, where it names nothing (${path.join(etc, 'state', 'docsync.db')}); docsync used to take it from the working directory, where ${path.join(elsewhere, 'state', 'docsync.db')} is: write that absolute path`,
    );
    expect(existsSync(path.join(etc, 'state'))).toBe(false);
  });

  it('reads the secrets from the environment file beside the configuration, for a command run by hand', async () => {
    const { config, elsewhere, env, dir } = await setup(
      { store: 'documents', state: 'state/docsync.db' },
      true,
    );

    const run = await runCli(['run', '--once', '--config', config], {
      cwd: elsewhere,
      env,
      timeoutMs: 60_000,
    });

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readdirSync(path.join(dir, 'etc', 'documents'))).toContain('Trusts');
  }, 90_000);

  it('names docsync init when there is no configuration, not a file of a clone', async () => {
    expect(existsSync('/etc/docsync/docsync.json'), 'a machine without docsync installed').toBe(
      false,
    );
    const dir = tempDir();

    const status = await runCli(['status'], { cwd: dir, env: { DOCSYNC_CONFIG: '' } });

    expect(status.code).toBe(1);
    expect(status.stderr).toBe(
      `docsync: no configuration file: neither config/docsync.json (in ${dir}) nor /etc/docsync/docsync.json exists, and neither --config nor DOCSYNC_CONFIG names one; run \`${advisedCommand('', 'init', dir)}\` to write one (it asks what it needs; \`${advisedCommand('', 'init --help', dir)}\` shows the choices).\n`,
    );
  });
});
