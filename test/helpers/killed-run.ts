/**
 * `docsync run --once` in a real child process, optionally SIGKILLed as soon as the service has
 * served `killAt` requests: a moment fixed by the run's progress, not by how fast Node starts
 * on a busy machine. Shared by the crash test and the chaos suite.
 */
import { spawn } from 'node:child_process';
import { CLI } from './run-cli.js';
import type { SyncHarness } from './sync-harness.js';

export interface ChildRun {
  readonly killed: boolean;
  readonly code: number | null;
  readonly stderr: string;
}

/** Requests the simulator has answered (API and download links) since its counters were reset. */
export function served(h: SyncHarness): number {
  const counters = h.sim.admin.counters();
  return counters.api.total + counters.links.requests;
}

export function runOnceChild(h: SyncHarness, config: string, killAt?: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'run', '--once', '--config', config], {
      env: { ...process.env, DOCSYNC_REFRESH_TOKEN: h.sim.admin.mintRefreshToken() },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const poll =
      killAt === undefined
        ? undefined
        : setInterval(() => {
            if (served(h) >= killAt) child.kill('SIGKILL');
          }, 1);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(poll);
      resolve({ killed: signal === 'SIGKILL', code, stderr });
    });
  });
}
