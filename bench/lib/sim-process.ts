/**
 * Starts bench/sim-child.js and talks to it through the admin API (`/_admin/...`), the same
 * operations `simulator.admin` offers in-process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimulatorOptions } from '../../src/simulator/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface SimCounters {
  readonly api: { byRoute: Record<string, number>; total: number; listedOwners: number };
  readonly links: { requests: number };
}

export interface SimProcess {
  readonly apiUrl: string;
  readonly linkUrl: string;
  readonly webUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly pid: number;
  admin<T = unknown>(method: string, route: string, body?: unknown): Promise<T>;
  mintRefreshToken(): Promise<string>;
  counters(): Promise<SimCounters>;
  resetCounters(): Promise<void>;
  close(): Promise<void>;
}

export async function startSimProcess(options: SimulatorOptions): Promise<SimProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(here, '..', 'sim-child.js'), JSON.stringify(options)],
    // stdin stays open as a lifeline: the child exits when the runner dies, however it dies.
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`simulator exited early (${code})`)));
  });
  const info = JSON.parse(first) as Omit<SimProcess, 'admin' | 'close' | 'pid'>;
  const admin = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${info.apiUrl}/_admin${route}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    if (!response.ok) throw new Error(`admin ${method} ${route}: ${response.status}`);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    ...info,
    pid: child.pid!,
    admin,
    mintRefreshToken: async () =>
      (await admin<{ refreshToken: string }>('POST', '/refresh-tokens', {})).refreshToken,
    counters: () => admin<SimCounters>('GET', '/counters'),
    resetCounters: () => admin('DELETE', '/counters'),
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
