/**
 * How a chaos round syncs: in-process cycles against a faulty service (5xx, 429, resets,
 * truncated downloads, download links that expire while a slow answer waits), targeted cycles
 * standing in for webhooks (a `deleteDocument` event dropped or delivered twice), or the built
 * CLI's `docsync run --once` in a child process, SIGKILLed after the service served its K-th
 * request of the run (the crash test's approach), then maybe started again. A fourth way, a
 * kill aimed between the two steps of a content replace, is in replace-kill.ts.
 */
import type { FaultOptions } from '../../src/simulator/index.js';
import { pick } from '../../src/simulator/random.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runOnceChild } from '../helpers/killed-run.js';
import type { SyncHarness } from '../helpers/sync-harness.js';
import type { ChaosLedger } from './chaos-ledger.js';
import type { ChaosWorld } from './local-edits.js';

/** Link lifetime of the chaos simulator; an added delay longer than this expires a link. */
export const LINK_TTL_SECONDS = 1;

/** Answers that were faults (injected or expired links), counted before counters are reset. */
export function takeFaultCount(h: SyncHarness, ledger: ChaosLedger): void {
  const { api, links } = h.sim.admin.counters();
  let faults = 0;
  for (const [key, n] of Object.entries(api.byRoute)) if (/ (429|50\d)$/.test(key)) faults += n;
  for (const [key, n] of Object.entries(links.byStatus))
    if (/^(403|429|50\d|reset)$/.test(key)) faults += n;
  ledger.counts.faultsServed += faults;
  h.resetCounters();
}

function randomFaults(world: ChaosWorld): FaultOptions {
  const r = world.random;
  const seed = Math.floor(r() * 1e9);
  if (r() < 0.2) {
    // Rarely, a slow answer now and then, longer than a download link lives.
    return { latencyMs: LINK_TTL_SECONDS * 1000 + 100, latencyProbability: 0.04, seed };
  }
  return {
    serverError: r() * 0.12,
    tooManyRequests: r() * 0.03,
    reset: r() * 0.08,
    truncatedDownload: r() * 0.25,
    seed,
  };
}

/** One or two in-process cycles against a faulty service; a failed cycle is part of chaos. */
export async function faultyCycles(world: ChaosWorld): Promise<void> {
  const { h, ledger } = world;
  h.sim.admin.setFaults(randomFaults(world));
  ledger.counts.faultyCycles++;
  const times = 1 + Math.floor(world.random() * 2);
  for (let i = 0; i < times; i++) {
    ledger.counts.cycles++;
    await h.sync().catch(() => null);
  }
  h.sim.admin.setFaults({});
  takeFaultCount(h, ledger);
}

/**
 * A targeted, incremental cycle for some entities, as a webhook would start; the service's
 * deleted documents are named (the `deleteDocument` event), or not (the event was dropped), and
 * sometimes twice in a row (delivered twice).
 */
export async function targetedCycle(world: ChaosWorld, deletedByOwner: Map<string, Set<string>>) {
  const { h, ledger } = world;
  const owners = await h.owners();
  const some = owners.filter(() => world.random() < 0.6);
  const chosen = some.length > 0 ? some : [pick(world.random, owners)];
  const dropped = world.random() < 0.3;
  const deletedIds = dropped ? new Map<string, Set<string>>() : deletedByOwner;
  const times = world.random() < 0.3 ? 2 : 1;
  for (let i = 0; i < times; i++) {
    ledger.counts.cycles++;
    await h.sync({ fullReconcile: false, owners: chosen, deletedIds }).catch(() => null);
  }
  deletedByOwner.clear();
}

/** The config of the child `docsync run --once`: same folder, state file and service. */
export function childConfig(h: SyncHarness): string {
  return writeCliConfig(h.root.slice(0, -'/documents'.length), h.sim, {
    settleSeconds: 0,
    queue: { requestsPerSecond: 1000, concurrency: 4 },
    safety: { maxDeletePercent: 100, maxDeleteCount: 1000 },
    log: { level: 'error' },
  });
}

/** Counts a kill, and gives the state a usable refresh token again. */
export function afterKill({ h, ledger }: ChaosWorld): void {
  ledger.counts.kills++;
  // A kill between the token endpoint's answer and the save of the rotated refresh token
  // leaves the state with a spent one (seed 21, a kill after request 1): the service has
  // rotated it, so no client can recover; an operator runs `docsync auth login`. The
  // in-process cycles share this state file, so they get a fresh grant, as after a login.
  h.state.tokens.seedRefreshToken(h.sim.admin.mintRefreshToken());
}

/** A child run killed at a random moment, and sometimes a second one killed too. */
export async function killedChildRuns(world: ChaosWorld, config: string): Promise<void> {
  const { h, ledger } = world;
  // A little latency on every answer stretches the run, so kills land mid-run; sometimes a few
  // faults too (the CLI retries with production delays, 0.5 s and up, so they stay rare).
  const faulty = world.random() < 0.4;
  const seed = Math.floor(world.random() * 1e9);
  h.sim.admin.setFaults(
    faulty
      ? { latencyMs: 4, serverError: 0.03, reset: 0.02, truncatedDownload: 0.05, seed }
      : { latencyMs: 4, seed },
  );
  if (faulty) ledger.counts.faultyCycles++;
  const runs = world.random() < 0.3 ? 2 : 1;
  for (let i = 0; i < runs; i++) {
    takeFaultCount(h, ledger);
    const run = await runOnceChild(h, config, 1 + Math.floor(world.random() * 40));
    ledger.counts.childRuns++;
    ledger.counts.cycles++;
    if (run.killed) afterKill(world);
    else if (run.code !== 0 && run.code !== 3)
      throw new Error(`docsync exited ${run.code}: ${run.stderr}`);
  }
  h.sim.admin.setFaults({});
  takeFaultCount(h, ledger);
}
