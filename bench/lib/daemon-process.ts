/**
 * The real daemon (`docsync run`, compiled in bench/.out) as a child process against a
 * simulator, with its config file in a scratch folder. Ready means `/healthz` answered 200:
 * the start's full reconcile is done.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimProcess } from './sim-process.js';
import { until } from './stats.js';

/** The daemon as shipped (`npm run build`), not a bench copy: it reads its own package.json. */
export const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../dist/cli.js',
);

export interface DaemonProcess {
  readonly root: string;
  readonly pid: number;
  readonly webhookUrl: string | undefined;
  /** The status listener (`/healthz`, `/metrics`). */
  readonly statusUrl: string;
  output(): string;
  close(): Promise<void>;
  /**
   * Sends `signal` and resolves on exit: how long it took and the exit code (null: killed with
   * SIGKILL, when it had not exited `killAfterMs` after the signal).
   */
  stop(
    signal: NodeJS.Signals,
    killAfterMs?: number,
  ): Promise<{ readonly ms: number; readonly code: number | null }>;
}

export async function startDaemon(
  sim: SimProcess,
  dir: string,
  overrides: Record<string, unknown> = {},
  readyTimeoutMs = 120_000,
  /** Another build's dist/cli.js: a baseline built from an older commit (lib/baseline-build.ts). */
  cli = CLI,
  /** Whether that build knows `service.linkHosts` (bench 11's baseline is older than it). */
  knowsLinkHosts = cli === CLI,
): Promise<DaemonProcess> {
  const root = path.join(dir, 'documents');
  const config = path.join(dir, 'docsync.json');
  writeFileSync(
    config,
    JSON.stringify({
      service: {
        baseUrl: sim.apiUrl,
        webUrl: sim.webUrl,
        clientId: sim.clientId,
        clientSecret: sim.clientSecret,
        // The simulator's link host is plain http on loopback: fetched only when listed. A
        // baseline built before service.linkHosts existed refuses the key, and fetches any link.
        ...(knowsLinkHosts ? { linkHosts: [sim.linkUrl] } : {}),
      },
      store: { root },
      state: { path: path.join(dir, 'state', 'docsync.db') },
      // Only the triggers a bench drives may start a cycle.
      schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
      webhook: { enabled: false },
      status: { enabled: true, listen: '127.0.0.1:0' },
      log: { level: 'info' },
      ...overrides,
    }),
  );
  // e.g. BENCH_DAEMON_NODE_ARGS="--trace-gc" to see why a figure is what it is (Node refuses
  // that flag in NODE_OPTIONS).
  const nodeArgs = process.env.BENCH_DAEMON_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, cli, 'run', '--config', config],
    {
      env: { ...process.env, DOCSYNC_REFRESH_TOKEN: await sim.mintRefreshToken() },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const urlOf = (msg: string) => new RegExp(`"url":"([^"]+)","msg":"${msg}"`).exec(output)?.[1];
  const close = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  try {
    await until(
      () => {
        if (child.exitCode !== null) throw new Error(`daemon exited:\n${output}`);
        return urlOf('status page listening') !== undefined;
      },
      // The status page starts after the watcher's first walk, which a big tree makes long.
      readyTimeoutMs,
      20,
    );
    const status = urlOf('status page listening')!;
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`daemon exited:\n${output}`);
        return (await fetch(`${status}/healthz`).catch(() => null))?.status === 200;
      },
      readyTimeoutMs,
      100,
    );
  } catch (error) {
    await close();
    throw new Error(`${(error as Error).message}\n${output.slice(-2000)}`);
  }
  return {
    root,
    pid: child.pid!,
    webhookUrl: urlOf('webhook receiver listening'),
    statusUrl: urlOf('status page listening')!,
    output: () => output,
    close,
    async stop(signal, killAfterMs = Number.POSITIVE_INFINITY) {
      if (child.exitCode !== null) throw new Error(`daemon exited before ${signal}:\n${output}`);
      const exited = once(child, 'exit');
      const t0 = performance.now();
      child.kill(signal);
      const kill = Number.isFinite(killAfterMs)
        ? setTimeout(() => child.kill('SIGKILL'), killAfterMs)
        : undefined;
      const [code] = (await exited) as [number | null];
      clearTimeout(kill);
      return { ms: performance.now() - t0, code };
    },
  };
}

/**
 * Until the daemon's first cycle got through (`/healthz`'s `lastGoodCycleAt`): a daemon is ready
 * (healthy) as soon as it listens, while its first sync of an empty store still makes the folders.
 */
export async function untilFirstSync(daemon: DaemonProcess, timeoutMs = 120_000): Promise<void> {
  await until(
    async () => {
      const answer = await fetch(`${daemon.statusUrl}/healthz`).catch(() => null);
      const body = (await answer?.json().catch(() => null)) as { lastGoodCycleAt?: unknown } | null;
      return typeof body?.lastGoodCycleAt === 'string';
    },
    timeoutMs,
    100,
  );
}

/** Document folders on disk by document id (`… [id]`), two levels under Companies/Trusts. */
export function documentFolders(root: string, readdir: (dir: string) => string[]) {
  const found = new Map<string, string>();
  for (const kind of ['Companies', 'Trusts']) {
    for (const entity of readdir(path.join(root, kind))) {
      for (const doc of readdir(path.join(root, kind, entity))) {
        const id = /\[(\d+)\]$/.exec(doc)?.[1];
        if (id) found.set(id, path.join(root, kind, entity, doc));
      }
    }
  }
  return found;
}
