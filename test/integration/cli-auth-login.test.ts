/**
 * `docsync auth login` as an operator at a server's terminal meets it: it says what it waits
 * for and where, and how to finish without a browser on that machine (`--code`, a tunnel). Then
 * a browser elsewhere approves and the code comes in by hand, as the instructions say.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually } from '../helpers/daemon-process.js';
import { advisedCommand, CLI, runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('docsync auth login on a server without a browser', () => {
  it('says what it waits for, and the code from a browser elsewhere finishes the login', async () => {
    const sim = await startSim();
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const config = writeCliConfig(tempDir(), sim, {
      service: {
        baseUrl: sim.apiUrl,
        webUrl: sim.webUrl,
        clientId: sim.clientId,
        clientSecret: sim.clientSecret,
        redirectUri,
      },
    });
    child = spawn(process.execPath, [CLI, 'auth', 'login', '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
    await eventually(() => stdout.includes('--code'), 10_000);

    const url = /^ {2}(http\S+)$/m.exec(stdout)![1]!;
    expect(url).toMatch(new RegExp(`^${sim.apiUrl}/oauth/authorize\\?`));
    expect(stdout).toContain('Open this address in a browser');
    expect(stdout).toContain(
      `waits up to 10 minutes (Ctrl-C stops it) for the service to send that`,
    );
    expect(stdout).toContain(
      `browser back to ${redirectUri}, where docsync listens on this machine`,
    );
    expect(stdout).toContain('No browser on this machine (a server)?');
    expect(stdout).toContain('copy the value of code= from its address bar');
    // To finish by hand, this command as it runs here, on this configuration.
    expect(stdout).toContain(`\n      ${advisedCommand(config, 'auth login')} --code <the code>\n`);
    const port = new URL(redirectUri).port;
    expect(stdout).toContain(`ssh -L ${port}:127.0.0.1:${port} <this server>`);

    // A browser on another machine: it follows the service to a redirect it cannot load.
    const approved = await fetch(url, { redirect: 'manual' });
    const landed = new URL(approved.headers.get('location')!);
    expect(`${landed.origin}${landed.pathname}`).toBe(redirectUri);
    child.kill('SIGINT');
    await once(child, 'exit');

    const login = await runCli([
      'auth',
      'login',
      '--code',
      landed.searchParams.get('code')!,
      '--config',
      config,
    ]);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('docsync is authorised');
  });

  it('names service.redirectUri when its port is taken', async () => {
    const sim = await startSim();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const config = writeCliConfig(tempDir(), sim, {
        service: {
          baseUrl: sim.apiUrl,
          webUrl: sim.webUrl,
          clientId: sim.clientId,
          clientSecret: sim.clientSecret,
          redirectUri: `http://127.0.0.1:${port}/callback`,
        },
      });
      const { code, stderr } = await runCli(['auth', 'login', '--config', config]);
      expect(code).toBe(1);
      expect(stderr).toMatch(
        new RegExp(
          `^docsync: service\\.redirectUri: 127\\.0\\.0\\.1:${port} is already in use by another program \\(EADDRINUSE`,
        ),
      );
    } finally {
      blocker.close();
    }
  });
});
