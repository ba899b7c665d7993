/**
 * Advice that acts on the firm it was given for, as a person meets it on a host of several
 * firms: one firm's configuration `acme.json` (not the default `docsync.json`) with its secrets
 * in `acme.env`, every command run with `--config …/acme.json` (in this process, on a captured
 * terminal, against the simulator). Every command any of them advises, in any sentence (init's
 * next steps, a line of `check`, the sentence a command stops with, `auth login`'s way to
 * finish by hand, the sentence the daemon stops with before the login), carries `--config …/acme.json` in
 * the form that runs here, and a missing secret is said to go in `acme.env`; then the advice,
 * followed, syncs that firm.
 *
 * Stand-ins, said here: the folder the test makes stands for /etc/docsync (a test may not
 * write the machine's; the server's `sudo -u docsync` form is unit/advice-form.test.ts's), and
 * `init --for production` writes the real service's URLs, which the test points at the
 * simulator (`service.baseUrl`, `webUrl`, `linkHosts`) as a firm's proxy would not need to.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/program.js';
import { UNTHROTTLED } from '../helpers/cli-config.js';
import { eventually } from '../helpers/daemon-process.js';
import { freePort } from '../helpers/free-port.js';
import { CLI, capturedTerminal, runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-advice-');
const startSim = useSimulators();

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** How docsync runs on the test's terminal (the built cli.js, not on the PATH). */
const SELF = `node ${CLI}`;

/** Every command docsync advises in `text`: in backticks, or a line of init's "Next:". */
function advised(text: string): string[] {
  const quoted = [...text.matchAll(/`([^`]+)`/g)].map(([, command]) => command!);
  const lines = text
    .split('\n')
    .map((line) => line.trim().replace(/\s+#.*$/, ''))
    .filter((line) => line.startsWith(SELF));
  return [...quoted, ...lines].filter((command) => /^(docsync|node|sudo) /.test(command));
}

describe('advice on a host of several firms', () => {
  it('names the firm’s configuration in every command it advises, and its own environment file', async () => {
    const sim = await startSim({ seed: 'demo', rateLimitPerSecond: 0 });
    const dir = tempDir();
    const acme = path.join(dir, 'etc', 'docsync', 'acme.json');
    const acmeEnv = path.join(dir, 'etc', 'docsync', 'acme.env');
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const env = { DOCSYNC_CONFIG: '', DOCSYNC_CLIENT_SECRET: '', DOCSYNC_REFRESH_TOKEN: '' };
    const cli = (args: string[]) => runCli([...args, '--config', acme], { cwd: dir, env });
    const allAdvice: string[] = [];
    const expectNamed = (text: string, what: string) => {
      const commands = advised(text);
      allAdvice.push(...commands);
      for (const command of commands) {
        expect(command.startsWith(`${SELF} --config ${acme} `), `${what}: ${command}`).toBe(true);
      }
    };

    // init: the next steps; the secret is left to write in (no DOCSYNC_CLIENT_SECRET).
    const init = await runCli(
      [
        'init',
        '--for',
        'production',
        '--config',
        acme,
        '--client-id',
        sim.clientId,
        '--redirect-uri',
        redirectUri,
        '--no-webhook',
        '--store',
        path.join(dir, 'srv', 'documents', 'acme'),
        '--state',
        path.join(dir, 'var', 'lib', 'docsync', 'acme', 'state', 'docsync.db'),
        '--status-listen',
        `127.0.0.1:${await freePort()}`,
      ],
      { cwd: dir, env },
    );
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`into ${acmeEnv} (DOCSYNC_CLIENT_SECRET=…)`);
    expectNamed(init.stdout, 'init');
    expect(advised(init.stdout).length).toBeGreaterThanOrEqual(4);
    const config = JSON.parse(readFileSync(acme, 'utf8'));
    expect(config.service.redirectUri).toBe(redirectUri);
    writeFileSync(
      acme,
      JSON.stringify({
        ...config,
        service: {
          ...config.service,
          baseUrl: sim.apiUrl,
          webUrl: sim.webUrl,
          linkHosts: [sim.linkUrl],
        },
        queue: UNTHROTTLED,
      }),
    );

    // The secret not written in yet: the sentence names acme.env, where it goes.
    const noSecret = `service.clientSecret: required: set DOCSYNC_CLIENT_SECRET (in ${acmeEnv})`;
    const checkWithout = await cli(['check']);
    expect(checkWithout.code).toBe(1);
    expect(checkWithout.stdout).toContain(noSecret);
    const runWithout = await cli(['run', '--once']);
    expect(runWithout.code).toBe(1);
    expect(runWithout.stderr).toContain(noSecret);
    expect(`${checkWithout.stdout}${runWithout.stderr}`).not.toContain('docsync.env');

    writeFileSync(
      acmeEnv,
      readFileSync(acmeEnv, 'utf8').replace(
        /^DOCSYNC_CLIENT_SECRET=$/m,
        `DOCSYNC_CLIENT_SECRET=${sim.clientSecret}`,
      ),
    );

    // Not authorised yet: check's hint and the sentence run --once stops with.
    const check = await cli(['check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/auth login/);
    expectNamed(check.stdout, 'check');
    const once = await cli(['run', '--once']);
    expect(once.code).toBe(1);
    expect(once.stderr).toMatch(/auth login/);
    expectNamed(once.stderr, 'run --once');
    // An operator's command refused: its sentence too.
    const approve = await cli(['deletes', 'approve']);
    expect(approve.code).toBe(1);
    expectNamed(approve.stderr, 'deletes approve');

    // The daemon started before the login stops at its start (nothing is claimed before the
    // service lets docsync in), with the same sentence, for acme.
    const early = await cli(['run']);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(new RegExp(` --config ${escaped(acme)} auth login\``));
    expectNamed(early.stderr, 'run');

    // auth login, finished by a browser: its instructions name the way to finish by hand.
    const { terminal, stdout } = capturedTerminal({ cwd: dir, env });
    const login = main([process.execPath, CLI, 'auth', 'login', '--config', acme], terminal);
    await eventually(() => stdout.text().includes('--code <the code>'), 20_000);
    expectNamed(stdout.text(), 'auth login');
    const url = /^ {2}(http\S+)$/m.exec(stdout.text())![1]!;
    const approved = await fetch(url, { redirect: 'manual' });
    await fetch(approved.headers.get('location')!);
    expect(await login).toBe(0);

    // Followed, the advice syncs this firm.
    const first = await cli(['run', '--once']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(allAdvice.some((c) => c.endsWith(' auth login --code <the code>'))).toBe(true);
    expect(allAdvice.some((c) => c.endsWith(' deletes list'))).toBe(true);
  }, 120_000);
});
