import { type SpawnOptions, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { selfCommand } from '../../src/commands/self-command.js';
import type { Terminal } from '../../src/commands/terminal.js';
import { adviceCommand } from '../../src/domain/advice-form.js';
import type { Clock } from '../../src/domain/clock.js';
import { REAL_CLOCK } from '../../src/domain/clock.js';
import { main } from '../../src/program.js';

export const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');

/**
 * `docsync <args>` as a command run by `runCli` with `--config config` advises it: in the form
 * that runs from the test's working directory, naming that configuration.
 */
export function advisedCommand(config: string, args: string, cwd = process.cwd()): string {
  const self = selfCommand({ script: CLI, cwd, searchPath: process.env.PATH });
  return adviceCommand({ self, user: null, config }, args);
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunCliOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  /** Started from a shell with this umask (e.g. 0o002), as a service manager may set it. */
  readonly umask?: number;
  /** Run as this user and group (the test runs as root: a user permissions apply to). */
  readonly user?: { readonly uid: number; readonly gid: number };
  /** The clock the command keeps time by (in-process only); the system's by default. */
  readonly clock?: Clock;
}

/**
 * Runs `docsync <args>` as the command line would, in this process: the program's own parsing
 * and handler on a terminal of the test's (captured stdout and stderr, the environment of this
 * process with `env` over it, `cwd`). What a child process alone can show (a umask, another
 * user) goes to `runCliProcess`.
 */
export async function runCli(
  args: readonly string[],
  options: RunCliOptions = {},
): Promise<CliResult> {
  if (options.umask !== undefined || options.user !== undefined)
    return runCliProcess(args, options);
  const { terminal, stdout, stderr } = capturedTerminal(options);
  const code = await main([process.execPath, CLI, ...args], terminal);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * A terminal of the test's: stdout and stderr kept, no input, this process's env with `env` over
 * it, and the test's clock when it has one.
 */
export function capturedTerminal(options: Pick<RunCliOptions, 'cwd' | 'env' | 'clock'> = {}) {
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput();
  const terminal: Terminal = {
    stdout,
    stderr,
    stdin: noInput(),
    env: { ...process.env, ...options.env },
    cwd: options.cwd ?? process.cwd(),
    script: CLI,
    clock: options.clock ?? REAL_CLOCK,
  };
  return { terminal, stdout, stderr };
}

/** A stream that keeps what is written to it, as text; a terminal when `isTTY`. */
export class CapturedOutput extends Writable {
  #text = '';
  constructor(readonly isTTY = false) {
    super({ decodeStrings: false });
  }
  override _write(chunk: string | Buffer, _encoding: string, done: () => void): void {
    this.#text += chunk.toString();
    done();
  }
  text(): string {
    return this.#text;
  }
}

/** stdin as a script started without input has it: ended at once, no terminal. */
function noInput(): PassThrough {
  const input = new PassThrough();
  input.end();
  return input;
}

/** Runs the built `docsync` in a real child process, as a user or systemd would. */
export function runCliProcess(
  args: readonly string[],
  options: RunCliOptions = {},
): Promise<CliResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  // Node cannot set a child's umask; a shell sets it and then becomes node (exec).
  const [command, argv]: [string, string[]] =
    options.umask === undefined
      ? [process.execPath, [CLI, ...args]]
      : [
          '/bin/sh',
          [
            '-c',
            `umask ${options.umask.toString(8)}; exec "$0" "$@"`,
            process.execPath,
            CLI,
            ...args,
          ],
        ];
  return runProcess(command, argv, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    timeout: options.timeoutMs ?? 15_000,
    ...(options.user ?? {}),
  });
}

/** Runs a program to its end, collecting what it wrote on stdout and stderr. */
export function runProcess(
  command: string,
  argv: readonly string[],
  options: Omit<SpawnOptions, 'stdio'>,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
