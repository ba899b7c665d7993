/**
 * Issue 28's firm-wide hint at the level a user reaches: the real daemon, no webhooks, 400
 * entities polled at 8 requests a second, so its start round takes about a minute. Companies the
 * round reaches last get a new status, a form lodged and a new form in the service; each reaches
 * the folder within a bound set by the sweep of the firm's unlodged list (a few of its requests),
 * not by the round. The sweep keeps to its share of the requests, and 0 turns it off.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { SimProfile } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { served } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

const RATE = 8;
const SHARE = 0.05; // the default
const INTERVAL_MS = 1000 / (SHARE * RATE);
/** A whole sweep is one request here; a form gone from the list is judged over two sweeps. */
const BOUND_MS = 3 * INTERVAL_MS + 5_000;
const NEVER = { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' };

const UNLODGED = /^GET \/companies\/documents\/unlodged 200$/;

/**
 * A firm of 300 companies and 100 trusts in step with a store (an unthrottled `--once`), and
 * three companies with an unlodged form, each the only one of its company, that the daemon's
 * start round lists last: their cursors say they were synced after every other entity (the
 * round lists the stalest first).
 */
async function firmInStep(profile: SimProfile) {
  const firm = await startSim({
    profile,
    rateLimitPerSecond: 0,
    seed: { companies: 300, trusts: 100, documentsPerEntity: 1, attachmentsPerDocument: 0 },
  });
  const dir = tempDir();
  const env = { DOCSYNC_REFRESH_TOKEN: firm.admin.mintRefreshToken() };
  const fast = writeCliConfig(dir, firm, { queue: { requestsPerSecond: 1000, concurrency: 8 } });
  const once = await runCli(['run', '--once', '--config', fast], { env, timeoutMs: 60_000 });
  expect(once.code, once.stderr).toBe(0);
  const late = (await firm.admin.dump()).documents
    .filter(
      (d) => d.owner.kind === 'company' && d.asicDocNumber !== null && d.status.type !== 'LODGED',
    )
    .slice(0, 3);
  expect(late).toHaveLength(3);
  const state = StateStore.open(loadConfig({ path: fast, env: {} }).state.path);
  for (const doc of late) {
    state.cursors.markSynced({ kind: 'company', id: doc.owner.id }, Date.now() + 60_000);
  }
  state.close();
  return { sim: firm, dir, env, late, root: path.join(dir, 'documents') };
}

function folderOf(root: string, id: string): string | null {
  const companies = path.join(root, 'Companies');
  for (const entity of readdirSync(companies)) {
    const name = readdirSync(path.join(companies, entity)).find((f) => f.endsWith(`[${id}]`));
    if (name) return path.join(companies, entity, name);
  }
  return null;
}

const statusIn = (folder: string | null) =>
  folder && existsSync(path.join(folder, '.document.json'))
    ? (JSON.parse(readFileSync(path.join(folder, '.document.json'), 'utf8')).status as string)
    : null;

/** Polls `check` until it is true and returns how long that took, or null after `ms`. */
async function timeUntil(check: () => boolean, ms: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

describe('docsync run without webhooks: the firm-wide unlodged list as a hint', () => {
  it.each(['api', 'public-docs'] as const)(
    'brings a new status, a lodged form and a new form in companies the round reaches last within a few sweeps (--profile %s)',
    async (profile) => {
      const { sim, dir, env, late, root } = await firmInStep(profile);
      const [restatus, lodge, sibling] = late as [
        (typeof late)[0],
        (typeof late)[0],
        (typeof late)[0],
      ];
      const config = writeCliConfig(dir, sim, {
        log: { level: 'info' },
        queue: { requestsPerSecond: RATE, concurrency: 4 },
        schedule: NEVER,
      });
      const daemon = startDaemon(config, env);
      await daemon.started;
      const lists = /^GET \/(companies|trusts)\/\{ownerId\}\/documents 200$/;
      await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_MS)); // a sweep or two
      const before = {
        total: sim.admin.counters().api.total,
        sweep: served(sim, UNLODGED),
        at: Date.now(),
      };
      const listedBefore = served(sim, lists);

      sim.admin.assignStatus(restatus.id, { typeId: 3 }); // SENT TO CLIENT
      sim.admin.assignStatus(lodge.id, { typeId: 21 }); // LODGED: it leaves the list
      const form = sim.admin.createDocument({
        owner: { kind: 'company', id: sibling.owner.id },
        name: 'Form 484 change of address',
        asicDocNumber: '2E4242424',
        statusTypeId: 2,
      });

      const landed = await Promise.all([
        timeUntil(() => statusIn(folderOf(root, restatus.id)) === 'SENT TO CLIENT', BOUND_MS),
        timeUntil(() => statusIn(folderOf(root, lodge.id)) === 'LODGED', BOUND_MS),
        timeUntil(
          () => statusIn(folderOf(root, String(form.id))) === 'DOCUMENT PREPARED',
          BOUND_MS,
        ),
      ]);
      expect(landed, `not in the folder within ${BOUND_MS} ms`).not.toContain(null);
      // The round was far from them: it had most of the firm still to list.
      expect(served(sim, lists) - listedBefore).toBeLessThan(400 / 2);

      // The sweep's share of the requests, while the round used the rest of the rate.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const elapsedS = (Date.now() - before.at) / 1000;
      const sweep = served(sim, UNLODGED) - before.sweep;
      const total = sim.admin.counters().api.total - before.total;
      // At most its share of the rate (one request more for the one under way at the start).
      expect(sweep).toBeGreaterThan(0);
      expect(sweep).toBeLessThanOrEqual(SHARE * RATE * elapsedS + 1);
      expect(total).toBeGreaterThan(sweep);
      expect(daemon.output()).toContain("the firm's unlodged list shows a new status");

      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    },
    120_000,
  );

  it('reads the list not at all with schedule.unlodgedSweepShare 0: the change waits for the round', async () => {
    const { sim, dir, env, late, root } = await firmInStep('api');
    const config = writeCliConfig(dir, sim, {
      log: { level: 'info' },
      queue: { requestsPerSecond: RATE, concurrency: 4 },
      schedule: { ...NEVER, unlodgedSweepShare: 0 },
    });
    const daemon = startDaemon(config, env);
    await daemon.started;
    const doc = late[0]!;
    sim.admin.assignStatus(doc.id, { typeId: 3 });
    const landed = await timeUntil(
      () => statusIn(folderOf(root, doc.id)) === 'SENT TO CLIENT',
      BOUND_MS,
    );
    expect(landed).toBeNull();
    expect(served(sim, UNLODGED)).toBe(0);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  }, 120_000);
});
