/**
 * The firm-wide hint at the level a user reaches: the daemon as `docsync run` assembles it
 * (createDaemon, in this process), no webhooks, polling a firm whose start round takes many of
 * the sweep's intervals. Companies the round reaches last get a new status, a form lodged and a
 * new form in the service; each reaches the folder through the sweep of the firm's unlodged list
 * while the round has most of the firm still to list, and the sweep keeps to its share. With a
 * share of 0 nothing reads the list and the change waits for the round. What matters is the
 * round's length over the sweep's interval (here 20), so the firm is small and the rate
 * high; the sweep's exact pace is judged on a virtual clock (test/unit/unlodged-sweep.test.ts).
 *
 * Beside it, the sweep over the real client finds the same changes in both readings of the
 * service (`--profile api` and `public-docs`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDaemon } from '../../src/commands/run-command.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { Daemon } from '../../src/daemon/daemon.js';
import { sweepIntervalMs, UnlodgedSweep } from '../../src/daemon/unlodged-sweep.js';
import { MONOTONIC_CLOCK } from '../../src/domain/clock.js';
import type { AgreedDocument } from '../../src/domain/unlodged-hints.js';
import { createLogger } from '../../src/log/create-logger.js';
import type { SeedOption, StateDump } from '../../src/simulator/index.js';
import { SIM_PROFILES } from '../../src/simulator/profile.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { eventually } from '../helpers/daemon-process.js';
import { useRemote } from '../helpers/remote.js';
import { capturedTerminal, runCli } from '../helpers/run-cli.js';
import { served } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();
const startRemote = useRemote();
const daemons: Daemon[] = [];
const sweeps: UnlodgedSweep[] = [];
afterEach(async () => {
  for (const sweep of sweeps.splice(0)) sweep.close();
  await Promise.all(daemons.splice(0).map((d) => d.close()));
});

/**
 * 80 entities at 40 requests a second, a fifth of them the sweep's: a start round of ~2.5 s and
 * a sweep request every 125 ms. Two poll slots keep the sweep's page from waiting long behind the
 * round's in the request queue (two requests, 50 ms), so its own interval, not the queue, sets
 * its pace.
 */
const FIRM = { companies: 60, trusts: 20, documentsPerEntity: 1, attachmentsPerDocument: 0 };
const ENTITIES = FIRM.companies + FIRM.trusts;
const RATE = 40;
const SHARE = 0.2;
const SLOTS = 2;
const INTERVAL_MS = sweepIntervalMs(SHARE, RATE)!;
/** Where the sweep plays no part, a smaller firm does. */
const SMALL_FIRM = { ...FIRM, companies: 20, trusts: 10 };
/** Room for a busy machine; the proof is how far the round got, not how long it took. */
const LANDS_WITHIN_MS = 30_000;

const UNLODGED = /^GET \/companies\/documents\/unlodged 200$/;
const LISTS = /^GET \/(companies|trusts)\/\{ownerId\}\/documents 200$/;

const unlodgedIn = (documents: StateDump['documents']) =>
  documents.filter(
    (d) => d.owner.kind === 'company' && d.asicDocNumber !== null && d.status.type !== 'LODGED',
  );

/**
 * A firm in step with a store (an unthrottled `--once`), and three companies with an unlodged
 * form, each the only one of its company, that the daemon's start round lists last: their
 * cursors say they were synced after every other entity (the round lists the stalest first).
 */
async function firmInStep(seed: SeedOption = FIRM) {
  const sim = await startSim({ rateLimitPerSecond: 0, seed });
  const dir = tempDir();
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const fast = writeCliConfig(dir, sim);
  const once = await runCli(['run', '--once', '--config', fast], { env });
  expect(once.code, once.stderr).toBe(0);
  const late = unlodgedIn((await sim.admin.dump()).documents).slice(0, 3);
  expect(late).toHaveLength(3);
  const state = StateStore.open(loadConfig({ path: fast, env: {} }).state.path);
  for (const doc of late) {
    state.cursors.markSynced({ kind: 'company', id: doc.owner.id }, Date.now() + 60_000);
  }
  state.close();
  return { sim, dir, env, late, root: path.join(dir, 'documents') };
}

/** The daemon `docsync run` would start on `config`, started; its log lines kept. */
async function startedDaemon(config: string, env: NodeJS.ProcessEnv) {
  const lines: string[] = [];
  const { daemon } = createDaemon(capturedTerminal({ env }).terminal, {
    config,
    logDestination: { write: (line: string) => lines.push(line) },
  });
  daemons.push(daemon);
  await daemon.start();
  const entries = () =>
    lines.map((l) => JSON.parse(l) as { msg: string; documentId?: string; documentIds?: string[] });
  return {
    daemon,
    log: () => entries().map((e) => e.msg),
    /** The documents the log says the unlodged list showed: a line each, or a page's summary. */
    hinted: () =>
      entries()
        .filter((e) => e.msg.startsWith("the firm's unlodged list shows"))
        .flatMap((e) => e.documentIds ?? (e.documentId ? [e.documentId] : [])),
  };
}

function folderOf(root: string, id: string): string | null {
  const companies = path.join(root, 'Companies');
  for (const entity of readdirSync(companies)) {
    const name = readdirSync(path.join(companies, entity)).find((f) => f.endsWith(`[${id}]`));
    if (name) return path.join(companies, entity, name);
  }
  return null;
}

const statusIn = (root: string, id: string) => {
  const folder = folderOf(root, id);
  return folder && existsSync(path.join(folder, '.document.json'))
    ? (JSON.parse(readFileSync(path.join(folder, '.document.json'), 'utf8')).status as string)
    : null;
};

describe('docsync run without webhooks: the firm-wide unlodged list as a hint', () => {
  it('brings a new status, a lodged form and a new form in companies the round reaches last while the round is far from them', async () => {
    const { sim, dir, env, late, root } = await firmInStep();
    const [restatus, lodge, sibling] = late as [
      (typeof late)[0],
      (typeof late)[0],
      (typeof late)[0],
    ];
    const config = writeCliConfig(dir, sim, {
      log: { level: 'info' },
      queue: { requestsPerSecond: RATE, concurrency: SLOTS },
      // Each sweep at the share's pace: the list is one page, which the floor between sweeps
      // would otherwise read once in 30 s.
      schedule: { ...NEVER, unlodgedSweepShare: SHARE, unlodgedSweepSeconds: 0 },
    });
    const { hinted } = await startedDaemon(config, env);
    // A form lodged shows only as gone from the list: the sweep must have seen it there first.
    await eventually(() => served(sim, UNLODGED) >= 1, LANDS_WITHIN_MS);
    const from = {
      at: Date.now(),
      sweep: served(sim, UNLODGED),
      listed: served(sim, LISTS),
    };

    sim.admin.assignStatus(restatus.id, { typeId: 3 }); // SENT TO CLIENT
    sim.admin.assignStatus(lodge.id, { typeId: 21 }); // LODGED: it leaves the list
    const form = sim.admin.createDocument({
      owner: { kind: 'company', id: sibling.owner.id },
      name: 'Form 484 change of address',
      asicDocNumber: '2E4242424',
      statusTypeId: 2,
    });
    await eventually(
      () =>
        statusIn(root, restatus.id) === 'SENT TO CLIENT' &&
        statusIn(root, lodge.id) === 'LODGED' &&
        statusIn(root, String(form.id)) === 'DOCUMENT PREPARED',
      LANDS_WITHIN_MS,
    );

    // The round, which lists these three last, had most of the firm still to list.
    expect(served(sim, LISTS) - from.listed).toBeLessThan(ENTITIES / 2);
    expect(hinted()).toEqual(expect.arrayContaining([restatus.id, lodge.id, String(form.id)]));

    // The sweep keeps to its share while the round goes on beside it. It asks one page at a
    // time, so of n pages answered since `from` all but the first were asked after it, an
    // interval apart at the least (less a millisecond: a timer may fire that early). A busy
    // machine only stretches them.
    await eventually(() => served(sim, UNLODGED) >= from.sweep + 10, LANDS_WITHIN_MS);
    const sweep = served(sim, UNLODGED) - from.sweep;
    const elapsedMs = Date.now() - from.at;
    expect(elapsedMs).toBeGreaterThanOrEqual((sweep - 2) * (INTERVAL_MS - 1));
    // And the round goes on: it lists entities besides the three the hints synced (on a busy
    // machine the round's syncs, not the sweep's cheap pages, are what the CPU holds back).
    await eventually(() => served(sim, LISTS) - from.listed > late.length, LANDS_WITHIN_MS);
  });

  it('reads the list not at all with schedule.unlodgedSweepShare 0: the change waits for the round', async () => {
    const { sim, dir, env, late, root } = await firmInStep(SMALL_FIRM);
    const doc = late[0]!;
    sim.admin.assignStatus(doc.id, { typeId: 3 });
    // The sweep's interval plays no part: a faster rate makes the round short.
    const config = writeCliConfig(dir, sim, {
      log: { level: 'info' },
      queue: { requestsPerSecond: 200, concurrency: SLOTS },
      schedule: { ...NEVER, unlodgedSweepShare: 0 },
    });
    const listedBefore = served(sim, LISTS); // the first sync's
    const { log } = await startedDaemon(config, env);
    await eventually(() => statusIn(root, doc.id) === 'SENT TO CLIENT', LANDS_WITHIN_MS);
    // It came with the round, which lists its company after the others: all of them were listed
    // by then but those that may still have been in the poll slots beside it.
    expect(served(sim, LISTS) - listedBefore).toBeGreaterThanOrEqual(
      SMALL_FIRM.companies + SMALL_FIRM.trusts - late.length - (SLOTS - 1),
    );
    expect(served(sim, UNLODGED)).toBe(0);
    expect(log().filter((msg) => msg.includes("the firm's unlodged list"))).toEqual([]);
  });
});

describe.each(SIM_PROFILES)('the sweep over the client (--profile %s)', (profile) => {
  it('pages the whole list and hints a new status, a lodged form (whole) and a new form', async () => {
    // More unlodged forms than one page holds.
    const seed: SeedOption = {
      companies: 60,
      trusts: 20,
      documentsPerEntity: 40,
      attachmentsPerDocument: 0,
    };
    const { sim, remote } = await startRemote({ profile, rateLimitPerSecond: 0, seed });
    const forms = unlodgedIn((await sim.admin.dump()).documents);
    expect(forms.length).toBeGreaterThan(500);
    // The agreed state of a store in step: every form with the status it has now.
    const agreed = new Map<string, AgreedDocument>(
      forms.map((d) => [
        d.id,
        { owner: { kind: 'company', id: d.owner.id }, statusId: String(d.status.id) },
      ]),
    );
    const offsets: number[] = [];
    const hints: [string, boolean][] = [];
    const sweep = new UnlodgedSweep({
      page: (offset) => {
        offsets.push(offset);
        return remote.client.unlodgedPage(offset);
      },
      agreed: (ids) =>
        new Map(ids.flatMap((id) => (agreed.has(id) ? [[id, agreed.get(id)!] as const] : []))),
      company: (id) => ({ kind: 'company', id }),
      ready: () => true,
      hint: (owner, whole) => hints.push([owner.id, whole]),
      // The pace is not what this test is about: as fast as the simulator answers.
      intervalMs: 1,
      sweepEveryMs: 0,
      clock: MONOTONIC_CLOCK,
      logger: createLogger({ level: 'silent' }),
      onError: (error) => {
        throw error;
      },
    });
    sweeps.push(sweep);
    sweep.start();
    await eventually(() => sweep.stats.sweeps >= 1);
    expect(hints).toEqual([]); // the list agrees with the state
    expect(offsets.slice(0, 2)).toEqual([0, 500]);

    // Forms of three companies on the list's last page.
    const picked = new Map<string, (typeof forms)[0]>();
    for (const d of forms.toReversed()) if (!picked.has(d.owner.id)) picked.set(d.owner.id, d);
    const [restatus, lodge, sibling] = [...picked.values()] as [
      (typeof forms)[0],
      (typeof forms)[0],
      (typeof forms)[0],
    ];
    sim.admin.assignStatus(restatus.id, { typeId: 3 });
    sim.admin.assignStatus(lodge.id, { typeId: 21 });
    sim.admin.createDocument({
      owner: { kind: 'company', id: sibling.owner.id },
      name: 'Form 484 change of address',
      asicDocNumber: '2E4242424',
      statusTypeId: 2,
    });
    const sweeps0 = sweep.stats.sweeps;
    await eventually(() => sweep.stats.sweeps >= sweeps0 + 2);
    expect(hints.toSorted()).toEqual(
      [
        [restatus.owner.id, false],
        [lodge.owner.id, true],
        [sibling.owner.id, false],
      ].toSorted(),
    );
  });
});
