/**
 * A new user's first steps (issue 27, cases 1 and 2), with the built CLI in child processes:
 * what `docsync demo` and `docsync simulator` advise runs as printed, from where they were run,
 * with no `docsync` on the PATH (a clone), and leads to a configuration that works.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unthrottleWritten } from '../helpers/cli-config.js';
import { runLine, words } from '../helpers/command-lines.js';
import { freePort } from '../helpers/free-port.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

/** A PATH with node on it and no `docsync`: a clone before any `npm link`. */
function pathWithoutDocsync(dir: string): NodeJS.ProcessEnv {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, path.join(bin, 'node'));
  return { PATH: bin };
}

/** The lines of `text` that are commands a person is told to run (indented, naming `what`). */
function advised(text: string, what: RegExp): string[] {
  return text.split('\n').filter((line) => /^ {2}\S/.test(line) && what.test(line));
}

/**
 * `docsync simulator` on a free port, until the test ends; resolves with what it printed. Without
 * its rate limit: the pace is the service's, which these steps are not about (see `unthrottleWritten`).
 */
async function startSimulatorCli(cwd: string): Promise<string> {
  const argv = [CLI, 'simulator', '--port', '0', '--seed', 'demo', '--rate-limit', '0'];
  const child = spawn(process.execPath, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (stdout.includes('Ctrl+C')) resolve(stdout);
    });
    child.on('exit', (code) => reject(new Error(`the simulator exited ${code}:\n${stdout}`)));
  });
}

describe('first steps', () => {
  it('case 1: docsync demo ends with commands that work from where it ran, without docsync on the PATH', async () => {
    const dir = tempDir();
    const env = pathWithoutDocsync(dir);

    const demo = await runCli(['demo'], { cwd: dir, env, timeoutMs: 120_000 });

    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    expect(demo.stdout, 'no advice names a bare `docsync` that is not there').not.toMatch(
      /`docsync /,
    );
    const commands = advised(demo.stdout, / (simulator|init) /);
    expect(commands.map((c) => words(c).slice(-2).join(' '))).toEqual([
      '--seed demo',
      '--for simulator',
    ]);
    const helps = await Promise.all(
      commands.map((command) => runLine([...words(command), '--help'], { cwd: dir, env })),
    );
    commands.forEach((command, i) => {
      expect(helps[i]!.stderr, command).toBe('');
      expect(helps[i]!.code, command).toBe(0);
      expect(helps[i]!.stdout).toContain(`Usage: docsync ${words(command).at(-3)}`);
    });
  }, 150_000);

  it('case 2: docsync simulator names the init command, and what init writes and advises works: check, run --once', async () => {
    const dir = tempDir();
    const printed = await startSimulatorCli(dir);
    const [initLine] = advised(printed, / init --for simulator/);
    expect(initLine, printed).toBeDefined();
    // The daemon's default ports may be taken on a test machine; everything else as printed.
    const listen = [
      ['--webhook-listen', `127.0.0.1:${await freePort()}`],
      ['--status-listen', `127.0.0.1:${await freePort()}`],
    ].flat();

    const init = await runLine([...words(initLine!), ...listen], { cwd: dir });

    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    unthrottleWritten(path.join(dir, 'config', 'docsync.json'));
    const next = init.stdout.slice(init.stdout.indexOf('Next:'));
    const [check, once, daemon] = advised(next, /#/).map(words);
    expect(check!.slice(-1)).toEqual(['check']);
    expect(once!.slice(-2)).toEqual(['run', '--once']);
    expect(daemon!.slice(-1)).toEqual(['run']);

    const checked = await runLine(check!, { cwd: dir });
    expect(checked.stdout).toMatch(/\n\d+ ok, (\d+ not tried, )?0 warnings, 0 failed\n$/);
    expect(checked.code).toBe(0);
    const synced = await runLine([...once!, '--json'], { cwd: dir, timeoutMs: 60_000 });
    expect(synced.code, synced.stderr).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ result: 'ok', errors: 0 });
    expect(readdirSync(path.join(dir, 'documents', 'Companies')).length).toBeGreaterThan(0);
    expect(existsSync(path.join(dir, 'config', 'docsync.env'))).toBe(true);
  }, 90_000);
});
