/**
 * One run of bench 17 (bench/firm-scale.ts): a firm seeded in step, the daemon of one build
 * started on it against a simulator of its own counting its limit in one mode, then the round's
 * changes, the round alone, the rest of the round with ~200 entities active, then a burst of
 * files during the next round, with a monitor polling it throughout.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { RateMode, StateDump } from '../../src/simulator/index.js';
import { asSchemaBeforeGovernor } from './baseline-schema.js';
import { monitor, timed } from './daemon-monitor.js';
import { CLI, documentFolders, startDaemon } from './daemon-process.js';
import { memoryOf } from './proc-usage.js';
import { random } from './random.js';
import { seedSyncedStore } from './seed-synced-store.js';
import { type SimCounters, type SimProcess, startSimProcess } from './sim-process.js';
import { sleep, until } from './stats.js';
import { scratch } from './temp.js';

export interface RunPlan {
  readonly mode: RateMode;
  readonly limit: number;
  readonly cli: string;
  readonly label: string;
  readonly firm: { readonly companies: number; readonly trusts: number };
  readonly files: number;
  readonly aloneMs: number;
  /** The cap on the round from its first listing, ms; undefined: 2.5 × the quiet estimate. */
  readonly capMs: number | undefined;
}

export interface RunFigures {
  readonly healthz: number[];
  readonly lag: number[];
  /** The five worst seconds of the loop, when (the monitor's clock) and how long. */
  readonly worstLag: string[];
  /** ms from each round-only change to its `.document.json`; null: not seen by the end. */
  readonly changes: (number | null)[];
  readonly alonePassed: number;
  readonly aloneAdvance: number;
  /** Distinct entities listed a second once HOOK_COMPANIES entities were made active. */
  readonly activeAdvance: number;
  readonly hooksHeat: (number | null)[];
  readonly hooksActive: (number | null)[];
  readonly hooksInBurst: (number | null)[];
  readonly burstMs: number;
  /** From the first listing until every entity was listed, ms; null: not by the cap. */
  readonly roundMs: number | null;
  readonly capMs: number;
  readonly left: number;
  readonly requests: number;
  readonly tooMany: number;
  readonly peakRss: number;
}

export const BURST_FOLDERS = 40;
export const HOOK_COMPANIES = 200;
export const HEAT_EVERY_MS = 500;
export const ACTIVE_EVERY_MS = 10_000;
export const BURST_HOOK_EVERY_MS = 2_000;
export const CHANGES = 100;
export const ARRIVAL_JITTER_MS = 20;
const HOOK = { clientCode: 'BENCH', secret: 'bench-secret' };
const UPLOADS = /^POST \S+\/attachments 201$/;
const sum = (c: SimCounters, route: RegExp) =>
  Object.entries(c.api.byRoute)
    .filter(([r]) => route.test(r))
    .reduce((n, [, count]) => n + count, 0);

/**
 * A store seeded in one go has every entity synced at one instant, so the round (stalest first)
 * would list them in the catalogue's order, every trust after every company, and a change at a
 * trust made at the round's start would wait most of a round. Spread over the last hour in a
 * seeded order, as a firm's store is after rounds broken up by hot polls and restarts, a random
 * entity is anywhere in the round.
 */
function spreadLastSyncs(stateFile: string): void {
  const db = new Database(stateFile);
  try {
    const pick = random(1717);
    const rows = db
      .prepare('SELECT owner_kind, owner_id FROM cursors ORDER BY owner_kind, owner_id')
      .all();
    const update = db.prepare(
      'UPDATE cursors SET last_success_at = last_success_at - ? WHERE owner_kind = ? AND owner_id = ?',
    );
    db.transaction(() => {
      for (const row of rows as { owner_kind: string; owner_id: string }[])
        update.run(Math.floor(pick() * 3_600_000), row.owner_kind, row.owner_id);
    })();
  } finally {
    db.close();
  }
}

export async function measureRun(plan: RunPlan): Promise<RunFigures> {
  const entities = plan.firm.companies + plan.firm.trusts;
  const seed = { ...plan.firm, documentsPerEntity: 2, attachmentsPerDocument: 1, seed: 17 };
  const sim = await startSimProcess({
    seed: { ...seed, attachmentBytes: 0 },
    rateLimitPerSecond: 0,
  });
  let stop = false;
  const stopped = () => stop;
  try {
    const dir = scratch(`firm-scale-${plan.label}`);
    const seeded = await seedSyncedStore(sim, dir);
    spreadLastSyncs(path.join(dir, 'state', 'docsync.db'));
    if (plan.cli !== CLI) asSchemaBeforeGovernor(path.join(dir, 'state', 'docsync.db'));
    await sim.admin('PUT', '/rate-limit', {
      perSecond: plan.limit,
      modes: [plan.mode],
      burst: 2,
      arrivalJitterMs: ARRIVAL_JITTER_MS,
    });
    await sim.resetCounters();
    const webhook = { enabled: true, listen: '127.0.0.1:0', ...HOOK };
    // Rounds back to back: the burst comes during the round after the start's.
    const schedule = { cron: '* * * * *', fullReconcileCron: '0 0 1 1 *' };
    // Read before the daemon starts: dumping 10,000 documents holds the simulator's event loop,
    // and the requests that arrive meanwhile are let in bunched, which a sliding second refuses.
    const docs = (await sim.admin<StateDump>('GET', '/state')).documents;
    const daemon = await startDaemon(sim, dir, { webhook, schedule }, 600_000, plan.cli, true);
    try {
      const hookOn = () => sim.admin('PUT', '/webhook', { url: daemon.webhookUrl, ...HOOK });
      await hookOn();
      const watch = await monitor(daemon, stopped);
      const folders = documentFolders(seeded.root, (d) => (existsSync(d) ? readdirSync(d) : []));
      const firstOf = (kind: 'company' | 'trust') => {
        const first = new Map<string, string>();
        for (const d of docs)
          if (d.owner.kind === kind && !first.has(d.owner.id)) first.set(d.owner.id, d.id);
        return [...first.values()];
      };
      await until(async () => (await sim.counters()).api.listedOwners > 0, 600_000, 20);
      const roundStarted = performance.now();

      // Round-only changes: trusts (no firm-wide hint covers them), the webhook off meanwhile.
      await sim.admin('DELETE', '/webhook');
      const trustDocs = firstOf('trust');
      const pick = random(17);
      const changes: Promise<number | null>[] = [];
      for (let i = 0; i < CHANGES; i++) {
        // A document changed twice would hide its first change: each is drawn once.
        const id = trustDocs.splice(Math.floor(pick() * trustDocs.length), 1)[0]!;
        const date = `2031-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
        const meta = path.join(folders.get(id)!, '.document.json');
        const shows = () =>
          String(JSON.parse(readFileSync(meta, 'utf8')).statusDate).startsWith(date);
        await sim.admin('POST', `/documents/${id}/statuses`, { typeId: 21, effectiveDate: date });
        changes.push(timed(shows, 500, stopped));
      }
      await hookOn();

      // The round alone.
      const aloneFrom = await sim.counters();
      const aloneStarted = performance.now();
      await sleep(plan.aloneMs);
      const aloneTo = await sim.counters();
      const aloneS = (performance.now() - aloneStarted) / 1000;
      const passed = (c: SimCounters) => c.api.total - sum(c, / 429$/);
      const alonePassed = (passed(aloneTo) - passed(aloneFrom)) / aloneS;
      const aloneAdvance = (aloneTo.api.listedOwners - aloneFrom.api.listedOwners) / aloneS;
      const capMs = plan.capMs ?? (2.5 * entities * 1000) / Math.max(aloneAdvance, 0.01);

      // The active phase: HOOK_COMPANIES companies made active (hot) by a webhook each, one
      // every HEAT_EVERY_MS; then, as in a firm's steady state, one more every ACTIVE_EVERY_MS,
      // the round's advance measured from then until it has listed every entity (or the cap).
      const companyDocs = firstOf('company');
      const hooks = hookStream(sim, plan.label, companyDocs.slice(BURST_FOLDERS), folders, stopped);
      await hooks.heated;
      const activeFrom = await sim.counters();
      const activeStarted = performance.now();
      let latest = activeFrom;
      let roundMs: number | null = null;
      while (!stop) {
        latest = await sim.counters();
        const sinceStart = performance.now() - roundStarted;
        if (latest.api.listedOwners >= entities) roundMs = sinceStart;
        if (roundMs !== null || sinceStart > capMs) break;
        await sleep(500);
      }
      const activeAdvance =
        ((latest.api.listedOwners - activeFrom.api.listedOwners) * 1000) /
        (performance.now() - activeStarted);

      // The burst, during the next round (schedule.cron each minute): files into 40 folders, a
      // webhook every BURST_HOOK_EVERY_MS meanwhile.
      hooks.phase = 'burst';
      const uploadsFrom = sum(latest, UPLOADS);
      const burstStarted = performance.now();
      for (let i = 0; i < plan.files; i++) {
        const folder = folders.get(companyDocs[i % BURST_FOLDERS]!)!;
        writeFileSync(path.join(folder, `burst ${i}.txt`), `burst ${plan.label} ${i}`);
      }
      let burstMs: number | null = null;
      while (!stop && burstMs === null && performance.now() - burstStarted < capMs) {
        await sleep(500);
        if (sum(await sim.counters(), UPLOADS) - uploadsFrom >= plan.files)
          burstMs = performance.now() - burstStarted;
      }
      hooks.phase = 'after';
      // What got there shows within a moment; what did not is cut off.
      await Promise.race([Promise.all([...changes, ...hooks.all()]), sleep(30_000)]);
      stop = true;
      const peakRss = memoryOf(daemon.pid).hwm;
      await watch.done;
      await hooks.done;
      const end = await sim.counters();
      return {
        healthz: watch.healthz,
        lag: watch.lag,
        worstLag: watch.lag
          .map((ms, i) => ({ ms, at: watch.lagAt[i]! }))
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 5)
          .map(({ ms, at }) => `${new Date(at).toISOString()} ${ms.toFixed(0)} ms`),
        changes: await Promise.all(changes),
        alonePassed,
        aloneAdvance,
        activeAdvance,
        hooksHeat: await hooks.of('heat'),
        hooksActive: await hooks.of('active'),
        hooksInBurst: await hooks.of('burst'),
        burstMs: burstMs ?? Number.NaN,
        roundMs,
        capMs,
        left: entities - end.api.listedOwners,
        requests: end.api.total,
        tooMany: sum(end, / 429$/),
        peakRss,
      };
    } finally {
      stop = true;
      await daemon.close();
      // With the scratch folder kept, its log too: what the daemon did when the loop stalled.
      if (process.env.DOCSYNC_BENCH_KEEP === '1')
        writeFileSync(path.join(dir, 'daemon.log'), daemon.output());
    }
  } finally {
    await sim.close();
  }
}

type HookPhase = 'heat' | 'active' | 'burst' | 'after';

/**
 * Attachments added in the simulator to a document of the next company of `docs` in turn (the
 * webhook tells the daemon), each timed until its file is in the folder and tagged with the
 * phase it was added in: HOOK_COMPANIES of them HEAT_EVERY_MS apart (`heated` when they are all
 * sent), then one every ACTIVE_EVERY_MS, or BURST_HOOK_EVERY_MS during the burst.
 */
function hookStream(
  sim: SimProcess,
  label: string,
  docs: readonly string[],
  folders: ReadonlyMap<string, string>,
  stopped: () => boolean,
) {
  const added: { phase: HookPhase; ms: Promise<number | null> }[] = [];
  const now: { phase: HookPhase } = { phase: 'heat' };
  let heated: () => void = () => undefined;
  const heatedPromise = new Promise<void>((resolve) => (heated = resolve));
  const done = (async () => {
    for (let i = 0; !stopped() && now.phase !== 'after'; i++) {
      if (i === HOOK_COMPANIES) {
        now.phase = 'active';
        heated();
      }
      const id = docs[i % HOOK_COMPANIES]!;
      const name = `hook ${i}.pdf`;
      const phase = now.phase;
      await sim.admin('POST', `/documents/${id}/attachments`, {
        name,
        contentBase64: Buffer.from(`%PDF-1.4 ${label} ${i}`).toString('base64'),
      });
      const file = path.join(folders.get(id)!, name);
      added.push({ phase, ms: timed(() => existsSync(file), 20, stopped) });
      const every = { heat: HEAT_EVERY_MS, active: ACTIVE_EVERY_MS, burst: BURST_HOOK_EVERY_MS };
      const until = performance.now() + every[phase];
      // A phase that changes meanwhile (the burst begins) takes its own pace at once.
      while (performance.now() < until && now.phase === phase && !stopped()) await sleep(100);
    }
    heated();
  })();
  return {
    set phase(phase: HookPhase) {
      now.phase = phase;
    },
    heated: heatedPromise,
    done,
    all: () => added.map((h) => h.ms),
    of: (phase: HookPhase) => Promise.all(added.filter((h) => h.phase === phase).map((h) => h.ms)),
  };
}
