import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach } from 'vitest';
import { CLI } from './run-cli.js';

export interface DaemonProcess {
  readonly child: ChildProcess;
  /** Resolves once the log says `docsync daemon started`; rejects if it exits first. */
  readonly started: Promise<void>;
  readonly exited: Promise<number | null>;
  /** Everything it wrote on stdout so far (the JSON log). */
  output(): string;
}

/** Starts `docsync run` children from the built CLI; each is killed after its test. */
export function useDaemonProcesses(): (config: string, env: NodeJS.ProcessEnv) => DaemonProcess {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });
  return (config, env) => {
    const child = spawn(process.execPath, [CLI, 'run', '--config', config], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    const started = new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk;
        if (output.includes('docsync daemon started')) resolve();
      });
      child.on('exit', () => reject(new Error(`daemon exited early:\n${output}`)));
    });
    return { child, started, exited, output: () => output };
  };
}

/** Polls `check` until it passes or `ms` run out. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  ms = 15_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Waits for a daemon's first sync to finish, read from its `/healthz` (`lastGoodCycleAt`): a
 * daemon is healthy from its start (it can sync), so a 200 alone does not say the catch-up is done.
 */
export async function firstSyncDone(healthzUrl: string, ms = 15_000): Promise<void> {
  await eventually(async () => {
    const answer = await fetch(healthzUrl);
    const body = (await answer.json()) as { lastGoodCycleAt?: string | null };
    return answer.status === 200 && typeof body.lastGoodCycleAt === 'string';
  }, ms);
}
