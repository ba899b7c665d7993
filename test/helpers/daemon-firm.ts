/**
 * A simulated firm and a store in step with it, for tests of the daemon beside webhooks, the
 * watcher and the command line: the simulator on port 0, a first `run --once` unthrottled, and a
 * daemon config with the webhook receiver on a free port and no scheduled round (only what the
 * test does starts a sync).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { SeedOption, Simulator, SimulatorOptions } from '../../src/simulator/index.js';
import { writeCliConfig } from './cli-config.js';
import type { DaemonProcess } from './daemon-process.js';
import { runCli } from './run-cli.js';
import type { StartSimulator } from './simulator.js';

export const HOOK = { clientCode: 'FIRM1', secret: 'hook-secret' };
/** Cycles only when a test asks: no cron round gets in the way. */
export const NEVER = { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' };

export interface FirmInStep {
  readonly sim: Simulator;
  readonly root: string;
  readonly env: NodeJS.ProcessEnv;
  /** Writes `dir/docsync.json` for the daemon (webhooks on, no round) with `overrides`. */
  config(overrides?: Record<string, unknown>): string;
  /** An unthrottled `docsync run --once` on the same store. */
  once(): Promise<void>;
}

/**
 * `startSim` is the test's `useSimulators()`, which closes the simulator after it. `inStep: false`:
 * the store is left empty (a first start); `sim`: more simulator options.
 */
export async function firmInStep(
  startSim: StartSimulator,
  dir: string,
  seed: SeedOption,
  options: { inStep?: boolean; sim?: Omit<SimulatorOptions, 'seed'> } = {},
): Promise<FirmInStep> {
  const sim = await startSim({ rateLimitPerSecond: 0, seed, ...options.sim });
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const once = async () => {
    const fast = writeCliConfig(dir, sim, { queue: { requestsPerSecond: 1000, concurrency: 4 } });
    const run = await runCli(['run', '--once', '--config', fast], { env });
    expect(run.code, run.stderr).toBe(0);
  };
  if (options.inStep ?? true) await once();
  return {
    sim,
    root: path.join(dir, 'documents'),
    env,
    once,
    config: (overrides = {}) =>
      writeCliConfig(dir, sim, {
        log: { level: 'info' },
        schedule: NEVER,
        webhook: { enabled: true, listen: '127.0.0.1:0', ...HOOK },
        ...overrides,
      }),
  };
}

/** The URL a listener logs, the moment it does. */
export function loggedUrl(daemon: DaemonProcess, msg: string): Promise<string> {
  const pattern = new RegExp(`"url":"([^"]+)","msg":"${msg}"`);
  return new Promise((resolve) => {
    const look = () => {
      const url = pattern.exec(daemon.output())?.[1];
      if (url === undefined) return;
      daemon.child.stdout!.off('data', look);
      resolve(url);
    };
    daemon.child.stdout!.on('data', look);
    look();
  });
}

/** The folder of document `id` under `root/top` (absolute), with its entity's and its own name. */
export function documentFolderOf(
  root: string,
  top: 'Companies' | 'Trusts',
  id: string,
): { folder: string; entity: string; name: string } {
  for (const entity of readdirSync(path.join(root, top))) {
    const name = readdirSync(path.join(root, top, entity)).find((f) => f.endsWith(`[${id}]`));
    if (name) return { folder: path.join(root, top, entity, name), entity, name };
  }
  throw new Error(`no folder for document ${id}`);
}
