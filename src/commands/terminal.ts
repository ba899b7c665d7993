/**
 * Where a command reads and writes: its output streams, its input, its environment, the folder
 * it was started in and the clock it keeps time by. `docsync` passes the process's own
 * (`processTerminal`); a test passes captured streams, an environment and a clock of its own, and
 * runs the same handler in-process. Every command takes it as an argument, so none can write
 * past it to the process's streams.
 */

import { type Clock, REAL_CLOCK } from '../domain/clock.js';

/** A stream a command writes to; `isTTY` when it is a terminal a person reads. */
export type Output = NodeJS.WritableStream & { readonly isTTY?: boolean };

export interface Terminal {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** The script node runs (`process.argv[1]`): the advice names docsync as it runs here. */
  readonly script: string | undefined;
  /** What the time rules (holds, housekeeping, settle waits) read and wait on. */
  readonly clock: Clock;
}

export function processTerminal(): Terminal {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    script: process.argv[1],
    clock: REAL_CLOCK,
  };
}

/** Both streams are a terminal: a person can be asked (a script gets flags instead). */
export function isInteractive(terminal: Terminal): boolean {
  return terminal.stdin.isTTY === true && terminal.stdout.isTTY === true;
}

/** The process's own stdout: the log may go to file descriptor 1 directly, without a stream. */
export function isProcessStdout(out: Output): boolean {
  return out === process.stdout;
}
