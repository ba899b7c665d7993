/**
 * One run of bench 17 (bench/firm-scale.ts): a firm seeded in step, the daemon of one build
 * started on it against a simulator of its own counting its limit in one mode, then the round's
 * changes, the round alone, the busy phase and the round's end, with a monitor polling it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { RateMode, StateDump } from '../../src/simulator/index.js';
import { asBaselineSchema } from './baseline-schema.js';
import { monitor, timed } from './daemon-monitor.js';
import { CLI, documentFolders, startDaemon } from './daemon-process.js';
import { memoryOf } from './proc-usage.js';
import { random } from './random.js';
import { seedSyncedStore } from './seed-synced-store.js';
import { type SimCounters, startSimProcess } from './sim-process.js';
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
  /** ms from each round-only change to its `.document.json`; null: not seen by the end. */
  readonly changes: (number | null)[];
  readonly alonePassed: number;
  readonly aloneAdvance: number;
  readonly hooksInBurst: (number | null)[];
  readonly hooks: (number | null)[];
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
export const HOOK_COMPANIES = 160;
export const HOOK_EVERY_MS = 2_000;
export const CHANGES = 16;
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
    // Migrations 15 and 16 (`pulls_in_doubt`, its `conflict_json`) came after the baseline.
    if (plan.cli !== CLI)
      asBaselineSchema(path.join(dir, 'state', 'docsync.db'), 14, ['pulls_in_doubt']);
    await sim.admin('PUT', '/rate-limit', {
      perSecond: plan.limit,
      modes: [plan.mode],
      burst: 2,
      arrivalJitterMs: ARRIVAL_JITTER_MS,
    });
    await sim.resetCounters();
    const webhook = { enabled: true, listen: '127.0.0.1:0', ...HOOK };
    const daemon = await startDaemon(sim, dir, { webhook }, 600_000, plan.cli, true);
    try {
      const hookOn = () => sim.admin('PUT', '/webhook', { url: daemon.webhookUrl, ...HOOK });
      await hookOn();
      const watch = await monitor(daemon, stopped);
      const docs = (await sim.admin<StateDump>('GET', '/state')).documents;
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
        const date = `2031-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + i).padStart(2, '0')}`;
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
      const burstFrom = await sim.counters();
      const aloneS = (performance.now() - aloneStarted) / 1000;
      const passed = (c: SimCounters) => c.api.total - sum(c, / 429$/);
      const alonePassed = (passed(burstFrom) - passed(aloneFrom)) / aloneS;
      const aloneAdvance = (burstFrom.api.listedOwners - aloneFrom.api.listedOwners) / aloneS;
      const capMs = plan.capMs ?? (2.5 * entities * 1000) / Math.max(aloneAdvance, 0.01);

      // The busy phase: a burst of files into 40 folders, an attachment elsewhere every 2 s.
      const companyDocs = firstOf('company');
      const burstStarted = performance.now();
      for (let i = 0; i < plan.files; i++) {
        const folder = folders.get(companyDocs[i % BURST_FOLDERS]!)!;
        writeFileSync(path.join(folder, `burst ${i}.txt`), `burst ${plan.label} ${i}`);
      }
      let latest = burstFrom;
      let burstMs: number | null = null;
      let roundMs: number | null = null;
      const progress = (async () => {
        while (!stop) {
          latest = await sim.counters();
          if (burstMs === null && sum(latest, UPLOADS) - sum(burstFrom, UPLOADS) >= plan.files)
            burstMs = performance.now() - burstStarted;
          const sinceStart = performance.now() - roundStarted;
          if (latest.api.listedOwners >= entities) roundMs = sinceStart;
          if (roundMs !== null || sinceStart > capMs) return;
          await sleep(500);
        }
      })();
      const hooks: { inBurst: boolean; ms: Promise<number | null> }[] = [];
      let roundOver = false;
      void progress.then(() => (roundOver = true));
      for (let i = 0; !roundOver; i++) {
        const id = companyDocs[BURST_FOLDERS + (i % HOOK_COMPANIES)]!;
        const name = `hook ${i}.pdf`;
        const inBurst = burstMs === null;
        await sim.admin('POST', `/documents/${id}/attachments`, {
          name,
          contentBase64: Buffer.from(`%PDF-1.4 ${plan.label} ${i}`).toString('base64'),
        });
        const file = path.join(folders.get(id)!, name);
        hooks.push({ inBurst, ms: timed(() => existsSync(file), 20, stopped) });
        await Promise.race([sleep(HOOK_EVERY_MS), progress]);
      }
      // What the round reached shows within a moment; what it did not is cut off.
      await Promise.race([Promise.all([...changes, ...hooks.map((h) => h.ms)]), sleep(30_000)]);
      stop = true;
      const peakRss = memoryOf(daemon.pid).hwm;
      await watch.done;
      const end = await sim.counters();
      const hookTimes = await Promise.all(hooks.map((h) => h.ms));
      return {
        healthz: watch.healthz,
        lag: watch.lag,
        changes: await Promise.all(changes),
        alonePassed,
        aloneAdvance,
        hooksInBurst: hookTimes.filter((_, i) => hooks[i]!.inBurst),
        hooks: hookTimes,
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
    }
  } finally {
    await sim.close();
  }
}
