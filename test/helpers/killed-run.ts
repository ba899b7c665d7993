/**
 * `docsync run --once` in a real child process, optionally SIGKILLed as soon as a condition on
 * the service holds (it has served K requests, or an upload): a moment fixed by the run's
 * progress, not by how fast Node starts on a busy machine. Shared by the crash tests and the
 * chaos suite.
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

/**
 * Attachment uploads the simulator has answered since its counters were reset. A request is
 * counted once its answer is sent, so the service holds the upload by then.
 */
export function uploadsServed(h: SyncHarness): number {
  return Object.entries(h.requests())
    .filter(([route]) => /^POST .*\/attachments/.test(route))
    .reduce((n, [, count]) => n + count, 0);
}

/** `docsync run --once`, SIGKILLed once `served(h)` reaches `killAt`; never when it is absent. */
export function runOnceChild(h: SyncHarness, config: string, killAt?: number): Promise<ChildRun> {
  return runOnceKilledWhen(h, config, killAt === undefined ? null : () => served(h) >= killAt);
}

/** `docsync run --once`, SIGKILLed as soon as `when` holds (polled every millisecond). */
export function runOnceKilledWhen(
  h: SyncHarness,
  config: string,
  when: (() => boolean) | null,
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'run', '--once', '--config', config], {
      env: { ...process.env, DOCSYNC_REFRESH_TOKEN: h.sim.admin.mintRefreshToken() },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const poll =
      when === null
        ? undefined
        : setInterval(() => {
            if (when()) child.kill('SIGKILL');
          }, 1);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(poll);
      resolve({ killed: signal === 'SIGKILL', code, stderr });
    });
  });
}
