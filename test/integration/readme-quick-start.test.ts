/**
 * The README's quick start ("Try it"), run as a new user would run it from a clean clone: the
 * commands are read out of README.md, so this fails when the README and the program disagree
 * (a step missing, a flag renamed, a command that does not exit 0, a page that is not there).
 *
 * The clone is the project's files as git would clone them (tracked, and new files not ignored),
 * copied into a temp folder, with three stand-ins, said here so nothing is hidden:
 * - `npm ci` is a symlink to this checkout's node_modules (the same lockfile, minutes faster);
 * - `npm run build` is a copy of this checkout's dist/, which `npm test` built once for all tests;
 * - the default ports (the simulator's 4010, the receiver's 8787, the page's 8788) may be taken
 *   on a test machine, so free ones are given: `--port` to the simulator, `--simulator-url`,
 *   `--webhook-listen` and `--status-listen` to init, and the page's URL read from the README
 *   with its port swapped;
 * - the pace is the service's, which none of these steps is about: the simulator runs without
 *   its rate limit (`--rate-limit 0`) and the configuration init wrote gets `queue` (1,000
 *   requests a second) added, so the first sync takes a second, not eight.
 * Every other word runs as written.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unthrottleWritten } from '../helpers/cli-config.js';
import { runLine, words } from '../helpers/command-lines.js';
import { eventually } from '../helpers/daemon-process.js';
import { freePort } from '../helpers/free-port.js';
import { useTempDir } from '../helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const tempDir = useTempDir('docsync-readme-');
const background: ChildProcess[] = [];
afterEach(() => {
  for (const child of background.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** The shell block of the README's "Try it" section, one command a line. */
function quickStart(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Try it'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block, 'README.md has a "## Try it" section with a sh block').toBeDefined();
  return block!.split('\n').filter((line) => line.trim() !== '');
}

/** What `git clone` of this checkout would give: its files, none that git ignores. */
function cleanClone(): string {
  const clone = path.join(tempDir(), 'docsync');
  const listed = spawnSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect(listed.status).toBe(0);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(path.join(ROOT, file))) continue; // deleted in the work tree
    mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(clone, file));
  }
  return clone;
}

/**
 * Each step gets a minute, however busy the machine, and says which step it was when it runs
 * out: a bare test timeout would not say where the run stood.
 */
const STEP_MS = 60_000;
function within<T>(what: string, work: Promise<T>, ms = STEP_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Starts a long-running command; resolves once its output says `ready`. */
function startInBackground(argv: string[], cwd: string, ready: string): Promise<ChildProcess> {
  const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  background.push(child);
  let output = '';
  const started = new Promise<ChildProcess>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk;
      if (output.includes(ready)) resolve(child);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code}:\n${output}`)));
  });
  return within(`${argv.join(' ')} saying "${ready}"`, started).catch((error: Error) => {
    throw new Error(`${error.message}\noutput so far:\n${output}`);
  });
}

describe('the README quick start', () => {
  it('runs from a clean clone: simulator, init, check, run --once, the daemon and its page', async () => {
    expect(existsSync(path.join(ROOT, 'dist', 'cli.js')), 'npm run build first').toBe(true);
    const clone = cleanClone();
    const ports = { sim: await freePort(), hook: await freePort(), page: await freePort() };
    const env = { DOCSYNC_CONFIG: '', DOCSYNC_REFRESH_TOKEN: '', DOCSYNC_CLIENT_SECRET: '' };
    let daemon: ChildProcess | undefined;
    let pageUrl: string | undefined;
    const done: string[] = [];

    for (const line of quickStart()) {
      for (const part of line
        .replace(/#.*$/, '')
        .split('&&')
        .map((p) => p.trim())) {
        const argv = words(part.replace(/&$/, ''));
        const [program, first, second] = argv;
        if (part === 'npm ci') {
          symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
        } else if (part === 'npm run build') {
          cpSync(path.join(ROOT, 'dist'), path.join(clone, 'dist'), { recursive: true });
        } else if (program === 'node' && first === 'dist/cli.js' && second === 'simulator') {
          const unlimited = ['--port', String(ports.sim), '--rate-limit', '0'];
          await startInBackground([...argv, ...unlimited], clone, 'Ctrl+C');
        } else if (program === 'node' && first === 'dist/cli.js' && second === 'init') {
          const given = [
            ['--simulator-url', `http://127.0.0.1:${ports.sim}`],
            ['--webhook-listen', `127.0.0.1:${ports.hook}`],
            ['--status-listen', `127.0.0.1:${ports.page}`],
          ].flat();
          const init = await within(part, runLine([...argv, ...given], { cwd: clone, env }));
          expect(init.code, `${part}\n${init.stderr}`).toBe(0);
          unthrottleWritten(path.join(clone, 'config', 'docsync.json'));
        } else if (
          program === 'node' &&
          first === 'dist/cli.js' &&
          argv.length === 3 &&
          second === 'run'
        ) {
          daemon = await startInBackground(argv, clone, 'docsync daemon started');
          const url = /https?:\/\/127\.0\.0\.1:8788\S*/.exec(line)?.[0];
          expect(url, `the README says where the page of \`${part}\` is`).toBeDefined();
          pageUrl = url!.replace(':8788', `:${ports.page}`);
        } else if (program === 'node' && first === 'dist/cli.js') {
          const result = await within(part, runLine(argv, { cwd: clone, env, timeoutMs: STEP_MS }));
          expect(result.code, `${part}\n${result.stdout}\n${result.stderr}`).toBe(0);
          if (second === 'check') expect(result.stdout).toMatch(/ 0 failed\n$/);
        } else {
          throw new Error(`the quick start has a step this test cannot run: ${part}`);
        }
        done.push(argv.slice(0, 4).join(' '));
      }
    }

    expect(done).toEqual([
      'npm ci',
      'npm run build',
      'node dist/cli.js simulator --seed',
      'node dist/cli.js init --for',
      'node dist/cli.js check',
      'node dist/cli.js run --once',
      'node dist/cli.js run',
    ]);
    // The first sync landed in the folder the README names, the daemon's page shows the firm.
    expect(readdirSync(path.join(clone, 'documents', 'Companies')).length).toBeGreaterThan(0);
    const page = await within('the status page', fetch(pageUrl!));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Harbourside Accounting Pty Ltd');
    const health = await within('/healthz', fetch(new URL('/healthz', pageUrl!)));
    expect(await health.json()).toMatchObject({ status: 'ok' });
    // "Then change something on either side": a document made in the simulator arrives.
    const made = await within(
      'a document made in the simulator',
      fetch(`http://127.0.0.1:${ports.sim}/_admin/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ owner: { kind: 'trust', id: '20001' }, name: 'From the README' }),
      }),
    );
    expect(made.status).toBe(201);
    const trusts = path.join(clone, 'documents', 'Trusts');
    // Within seconds on a quiet machine; a busy one gets a minute (the test polls, never sleeps).
    await eventually(
      () =>
        readdirSync(trusts).some((entity) =>
          readdirSync(path.join(trusts, entity)).some((d) => d.includes('From the README')),
        ),
      60_000,
    );
    const stopped = new Promise((resolve) => daemon!.on('exit', resolve));
    daemon!.kill('SIGTERM');
    expect(await within('the daemon stopping on SIGTERM', stopped)).toBe(0);
  }, 600_000);
});
