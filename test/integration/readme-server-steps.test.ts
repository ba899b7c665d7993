/**
 * The steps the README and the docs give for a server, run in order on a fresh folder against
 * the simulator, as a new user would type them, in both layouts:
 *
 * 1. one firm: the README's "Install on a server" block, then its "First contact with the real
 *    service" steps 1 to 5 (docs/real-service.md's steps 1 to 5: init, auth login, check, check
 *    --save, check --write, the dry run, the first run);
 * 2. several firms on one host (docs/operating.md, "Several firms on one host"): per firm its
 *    `init` line, then the next steps init prints for that firm, as printed.
 *
 * A step fails the test when it exits other than 0 or prints a stack trace (a line "    at …").
 * The commands are read out of the docs, so a step that changes there is run as it now reads.
 *
 * Stand-ins, said here so nothing is hidden:
 * - The machine's folders are a temp folder's: `/etc/…`, `/usr/local/…`, `/srv/…` and
 *   `/var/lib/…` in a command are those under it. `sudo npm install -g docsync-<version>.tgz`
 *   is the package's files (package.json's "files", as `npm pack` ships them) copied to
 *   `<tmp>/usr/local/lib/node_modules/docsync` with this checkout's node_modules linked (what
 *   npm would install), and `docsync` on the PATH a link to its cli.js, as npm makes it.
 * - `/etc/docsync/docsync.json` is where docsync looks by itself; under a temp folder, every
 *   step of layout 1 is told with DOCSYNC_CONFIG, as the units tell the daemon, and `init` is
 *   given `--config` as well, so that no version of it can write the machine's /etc.
 * - `sudo` and `sudo -u docsync` are dropped: the steps run as the test's user, and `useradd`
 *   and `systemctl daemon-reload` are not run (the daemon's user and systemd are the machine's).
 *   `sudo cp` of a unit is a real copy into `<tmp>/etc/systemd/system/`. `systemctl enable
 *   --now docsync[@firm]` is what the unit starts, `docsync run` with the unit's DOCSYNC_CONFIG,
 *   until it says it started; its /healthz then answers, and SIGTERM stops it with exit 0.
 * - What init asks at a terminal is given as flags (no terminal here): the registration's client
 *   id (`--client-id`), its secret (DOCSYNC_CLIENT_SECRET), its redirect URL (`--redirect-uri`,
 *   on a free port, as the default 8789 may be taken on a test machine), and free ports for the
 *   page (`--status-listen`) and, in layout 2, the receiver.
 * - The service is the simulator: init for staging or production writes the real service's
 *   environment, and the test adds the simulator's URLs over it (`service.baseUrl`, `webUrl`,
 *   `linkHosts`: a URL in the file wins over the environment's) and `queue` at an unthrottled
 *   pace, as the simulator runs without a rate limit (the steps are not about the pace).
 * - `auth login`'s browser is the test: it opens the printed address and follows the service's
 *   redirect to where docsync listens.
 * - `check --write "<a test company or trust>"` names a trust of the simulator's demo firm and
 *   adds `--yes`, which docs/real-service.md says a run without a terminal needs.
 * - Step 6 of the first contact (production) needs a second service; it is not run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { UNTHROTTLED } from '../helpers/cli-config.js';
import { runLine, words } from '../helpers/command-lines.js';
import { eventually } from '../helpers/daemon-process.js';
import { freePort } from '../helpers/free-port.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const tempDir = useTempDir('docsync-server-');
const startSim = useSimulators();
const background: ChildProcess[] = [];
afterEach(() => {
  for (const child of background.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

const STEP_MS = 60_000;
const STACK_LINE = /^\s+at /m;

/** The machine, under a temp folder: the package installed, `docsync` on the PATH. */
function machine(): { root: string; env: NodeJS.ProcessEnv; home: string } {
  const root = tempDir();
  const pkg = path.join(root, 'usr', 'local', 'lib', 'node_modules', 'docsync');
  const { files } = JSON.parse(read('package.json')) as { files: string[] };
  const shipped = new Set(files.map((f) => f.split('/')[0]!.replace(/\*.*$/, '')));
  for (const entry of ['package.json', ...shipped]) {
    if (entry === 'config') {
      mkdirSync(path.join(pkg, 'config'), { recursive: true });
      cpSync(
        path.join(ROOT, 'config', 'docsync.example.json'),
        path.join(pkg, 'config', 'docsync.example.json'),
      );
    } else {
      cpSync(path.join(ROOT, entry), path.join(pkg, entry), { recursive: true });
    }
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
  chmodSync(path.join(pkg, 'dist', 'cli.js'), 0o755);
  const bin = path.join(root, 'usr', 'local', 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(path.join(pkg, 'dist', 'cli.js'), path.join(bin, 'docsync'));
  mkdirSync(path.join(root, 'etc', 'systemd', 'system'), { recursive: true });
  const home = path.join(root, 'home', 'ops');
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    DOCSYNC_CONFIG: '',
    DOCSYNC_CLIENT_SECRET: '',
    DOCSYNC_REFRESH_TOKEN: '',
  };
  return { root, env, home };
}

/** A command of the docs with the machine's folders under `root`, and without sudo. */
function onMachine(command: string, root: string): string[] {
  const argv = words(command).map((word) =>
    /^\/(etc|usr\/local|srv|var\/lib)\//.test(word) ? path.join(root, word) : word,
  );
  if (argv[0] === 'sudo' && argv[1] === '-u') return argv.slice(3);
  return argv[0] === 'sudo' ? argv.slice(1) : argv;
}

interface Step {
  readonly command: string;
  readonly code: number | null;
  readonly output: string;
}

/** Runs one step to its end; it must exit 0 and print no stack trace. */
async function run(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Step> {
  const command = argv.join(' ');
  const result = await runLine(argv, { cwd, env, timeoutMs: STEP_MS });
  const output = `${result.stdout}${result.stderr}`;
  expect(output, `${command} printed a stack trace:\n${output}`).not.toMatch(STACK_LINE);
  expect(result.code, `${command} exited ${result.code}:\n${output}`).toBe(0);
  return { command, code: result.code, output: result.stdout };
}

/** Starts a step that runs until stopped; resolves once its output says `ready`. */
async function start(argv: string[], cwd: string, env: NodeJS.ProcessEnv, ready: string) {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  background.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await eventually(() => output.includes(ready) || child.exitCode !== null, STEP_MS);
  expect(output, `${argv.join(' ')}: not "${ready}"`).toContain(ready);
  return { child, output: () => output, exited };
}

/** `auth login` with the test as the browser: it opens the address and follows the redirect. */
async function authLogin(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const login = await start(argv, cwd, env, '--code <the code>');
  const url = /^ {2}(http\S+)$/m.exec(login.output())![1]!;
  const approved = await fetch(url, { redirect: 'manual' });
  await fetch(approved.headers.get('location')!);
  const code = await login.exited;
  expect(login.output(), 'auth login printed a stack trace').not.toMatch(STACK_LINE);
  expect(code, `auth login exited ${code}:\n${login.output()}`).toBe(0);
}

/** The stand-in for `systemctl enable --now <unit>`: the unit's `docsync run`, then SIGTERM. */
async function daemon(cwd: string, env: NodeJS.ProcessEnv, config: string): Promise<void> {
  const unitEnv = { ...env, DOCSYNC_CONFIG: config };
  const started = await start(['docsync', 'run'], cwd, unitEnv, 'docsync daemon started');
  const { status, store } = JSON.parse(readFileSync(config, 'utf8')) as {
    status: { listen: string };
    store: { root: string };
  };
  await eventually(async () => {
    const health = await fetch(`http://${status.listen}/healthz`).catch(() => null);
    return health?.status === 200;
  }, STEP_MS);
  // And its first sync under way in the folder: a stop ends a sync at its next step, so a
  // signal sent at once would leave the folder as empty as the dry run left it.
  const root = path.resolve(path.dirname(config), store.root);
  await eventually(() => existsSync(path.join(root, 'Companies')), STEP_MS);
  started.child.kill('SIGTERM');
  expect(await started.exited, started.output()).toBe(0);
  expect(started.output(), 'the daemon printed a stack trace').not.toMatch(STACK_LINE);
}

/** What init asks at a terminal, as flags; and the simulator's client secret. */
async function initAnswers(sim: Simulator): Promise<{ flags: string[]; env: NodeJS.ProcessEnv }> {
  return {
    flags: [
      '--client-id',
      sim.clientId,
      '--redirect-uri',
      `http://127.0.0.1:${await freePort()}/callback`,
      '--status-listen',
      `127.0.0.1:${await freePort()}`,
    ],
    env: { DOCSYNC_CLIENT_SECRET: sim.clientSecret },
  };
}

/** The simulator in place of the real service's environment, at an unthrottled pace. */
function pointAt(config: string, sim: Simulator): void {
  const written = JSON.parse(readFileSync(config, 'utf8'));
  written.service = {
    ...written.service,
    baseUrl: sim.apiUrl,
    webUrl: sim.webUrl,
    linkHosts: [sim.linkUrl],
  };
  writeFileSync(config, JSON.stringify({ ...written, queue: UNTHROTTLED }, null, 2));
}

/** The sh block of a section of a doc, one command a line. */
function block(file: string, heading: string): string[] {
  const text = read(file);
  const section = text.slice(text.indexOf(heading));
  const body = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  expect(body, `${file} has a sh block under "${heading}"`).toBeDefined();
  return body!.split('\n').filter((line) => line.trim() !== '');
}

/** The `docsync …` code spans of the README's numbered first-contact steps 1 to 5. */
function firstContactSteps(): string[] {
  const readme = read('README.md');
  const section = readme.slice(
    readme.indexOf('## First contact with the real service'),
    readme.indexOf('\n6. '),
  );
  return [...section.matchAll(/`(docsync [^`]+)`/g)].map(([, command]) => command!);
}

describe('the server steps of the README and the docs', () => {
  it('one firm: the README’s install steps, in order, on a fresh machine', async () => {
    expect(existsSync(path.join(ROOT, 'dist', 'cli.js')), 'npm run build first').toBe(true);
    const sim = await startSim({ seed: 'demo', rateLimitPerSecond: 0 });
    const { root, env: machineEnv, home } = machine();
    const config = path.join(root, 'etc', 'docsync', 'docsync.json');
    const env = { ...machineEnv, DOCSYNC_CONFIG: config };
    const answers = await initAnswers(sim);
    const done: string[] = [];

    for (const line of block('README.md', '## Install on a server')) {
      const command = line.replace(/#.*$/, '').trim();
      const argv = onMachine(command, root);
      const [program, first, second] = argv;
      if (
        command.startsWith('sudo npm install -g') ||
        /^sudo (useradd|systemctl daemon-reload)/.test(command)
      ) {
        // The package is installed by machine(); the user and systemd are the machine's.
      } else if (program === 'docsync' && first === 'init') {
        await run([...argv, '--config', config, ...answers.flags], home, {
          ...env,
          ...answers.env,
        });
        pointAt(config, sim);
      } else if (program === 'docsync' && first === 'auth' && second === 'login') {
        await authLogin(argv, home, env);
      } else if (program === 'docsync') {
        await run(argv, home, env);
      } else if (program === 'cp') {
        await run(argv, home, env);
        expect(readdirSync(path.join(root, 'etc', 'systemd', 'system'))).toContain(
          'docsync.service',
        );
      } else if (program === 'systemctl' && first === 'enable') {
        await daemon(home, env, config);
      } else {
        throw new Error(`a step this test cannot run: ${command}`);
      }
      done.push(argv.slice(0, 3).join(' '));
    }

    expect(done).toEqual([
      'npm install -g',
      'useradd --system --home-dir',
      'docsync init --for',
      `cp ${root}/usr/local/lib/node_modules/docsync/systemd/docsync.service ${root}/etc/systemd/system/`,
      'systemctl daemon-reload',
      'docsync auth login',
      'docsync check',
      'docsync run --once',
      'systemctl enable --now',
    ]);
    // The daemon's first sync filled the folder init chose.
    expect(readdirSync(path.join(home, 'documents'))).toContain('Companies');
  }, 600_000);

  it('one firm: the first contact with the service, steps 1 to 5, in order', async () => {
    const sim = await startSim({ seed: 'demo', rateLimitPerSecond: 0 });
    const { root, env: machineEnv, home } = machine();
    const config = path.join(root, 'etc', 'docsync', 'docsync.json');
    const env = { ...machineEnv, DOCSYNC_CONFIG: config };
    const answers = await initAnswers(sim);
    const steps = firstContactSteps();

    for (const command of steps) {
      const argv = onMachine(command, root);
      const [, first, second] = argv;
      if (first === 'init') {
        await run([...argv, '--config', config, ...answers.flags], home, {
          ...env,
          ...answers.env,
        });
        pointAt(config, sim);
      } else if (first === 'auth' && second === 'login') {
        await authLogin(argv, home, env);
      } else if (first === 'check' && second === '--write') {
        const named = argv.map((w) =>
          w === '<a test company or trust>' ? 'Harbourside Unit Trust' : w,
        );
        await run([...named, '--yes'], home, env);
      } else {
        await run(argv, home, env);
      }
    }

    expect(steps).toEqual([
      'docsync init --for staging',
      'docsync auth login',
      'docsync check',
      'docsync check --save check.txt',
      'docsync check --write "<a test company or trust>"',
      'docsync run --once --dry-run',
      'docsync run --once',
    ]);
    expect(readFileSync(path.join(home, 'check.txt'), 'utf8')).toContain(
      'What the check concluded:',
    );
    expect(readdirSync(path.join(home, 'documents', 'Trusts')).length).toBeGreaterThan(0);
  }, 600_000);

  it('several firms on one host: each firm’s init, then the steps it prints, as printed', async () => {
    const { root, env, home } = machine();
    const text = read('docs/operating.md').replace(/\s+/g, ' ');
    const perFirm =
      /`(sudo docsync init --for production --config \/etc\/docsync\/<firm>\.json[^`]*)`/.exec(
        text,
      )?.[1];
    expect(perFirm, 'docs/operating.md gives the init line of a firm').toBeDefined();
    const firms = [
      { name: 'acme', sim: await startSim({ seed: 'demo', rateLimitPerSecond: 0 }) },
      {
        name: 'beta',
        sim: await startSim({
          seed: {
            companies: 2,
            trusts: 1,
            documentsPerEntity: 1,
            attachmentsPerDocument: 1,
            seed: 7,
          },
          rateLimitPerSecond: 0,
        }),
      },
    ];

    for (const { name, sim } of firms) {
      const config = path.join(root, 'etc', 'docsync', `${name}.json`);
      const hook = await freePort();
      const page = await freePort();
      const line = perFirm!
        .replaceAll('<firm>', name)
        .replace('--webhook-listen 127.0.0.1:<port>', `--webhook-listen 127.0.0.1:${hook}`)
        .replace('--status-listen 127.0.0.1:<port>', `--status-listen 127.0.0.1:${page}`);
      const answers = await initAnswers(sim);
      // The store and state init gives /etc/docsync/<firm>.json, under the temp folder.
      const layout = [
        '--store',
        path.join(root, 'srv', 'documents', name),
        '--state',
        path.join(root, 'var', 'lib', 'docsync', name, 'state', 'docsync.db'),
      ];
      const flags = answers.flags.filter(
        (_, i, all) => all[i] !== '--status-listen' && all[i - 1] !== '--status-listen',
      );
      const init = await run([...onMachine(line, root), ...flags, ...layout], home, {
        ...env,
        ...answers.env,
      });
      pointAt(config, sim);

      const next = init.output
        .slice(init.output.indexOf('Next:'))
        .split('\n')
        .filter((l) => /^ {2}docsync /.test(l))
        .map((l) => l.replace(/#.*$/, '').trim());
      expect(next.length, init.output).toBeGreaterThanOrEqual(3);
      for (const command of next) {
        expect(command, 'every step names the firm').toContain(`--config ${config} `);
        const argv = words(command);
        const rest = argv.slice(3).join(' ');
        if (rest === 'auth login') await authLogin(argv, home, env);
        else if (rest === 'run') await daemon(home, env, config);
        else await run(argv, home, env);
      }
    }

    const [acme, beta] = ['acme', 'beta'].map((name) =>
      readdirSync(path.join(root, 'srv', 'documents', name, 'Companies')),
    );
    // Each firm's folder holds its own service's companies, none of the other's.
    expect(acme!.some((c) => c.startsWith('Harbourside'))).toBe(true);
    expect(beta!.some((c) => c.startsWith('Harbourside'))).toBe(false);
    expect(beta!.length).toBeGreaterThan(0);
  }, 600_000);
});
