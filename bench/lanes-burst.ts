/**
 * Bench 11: fair lanes and pacing (issue 28). A firm at 10 requests a second, the service
 * limited to the same rate in a sliding and in a calendar second; the daemon's start round lists
 * every entity. Once the round runs alone for a while, 2,000 files are dropped into 40 document
 * folders (40 companies), and while they go up a webhook's attachment is added every few
 * seconds elsewhere. Measured: webhook → file during the burst (median, p95), the burst's
 * length, the 429 answers, the rate used by the round alone and by everything during the burst.
 * Baseline, in the same run: the same with the daemon built from the commit before fair lanes
 * and pacing (BASELINE_COMMIT: pushes always first, the rate counted when a request took its
 * turn), against a fresh simulator seeded alike.
 *
 * `DOCSYNC_BENCH_SHORT=1` runs a short form (300 files over 300 entities) to see that it
 * measures what it should; its figures are not the issue's.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spacingMs } from '../src/domain/request-governor.js';
import { buildAt } from './lib/baseline-build.js';
import { asBaselineSchema } from './lib/baseline-schema.js';
import { documentFolders, startDaemon } from './lib/daemon-process.js';
import { BENCH_RATE_MODES, rateLimitBody, rateModesSaid } from './lib/rate-modes-env.js';
import { type BenchResult, verdict } from './lib/result.js';
import { seedSyncedStore } from './lib/seed-synced-store.js';
import { type SimCounters, startSimProcess } from './lib/sim-process.js';
import { median, ms, percentile, seconds, sleep, until } from './lib/stats.js';
import { scratch } from './lib/temp.js';

/** main before issue 28's fair lanes and pacing. */
const BASELINE_COMMIT = '79033c74fe25246607bb11db3298e838cf113e2a';
const SHORT = process.env.DOCSYNC_BENCH_SHORT === '1';
const RATE = 10;
const FILES = SHORT ? 300 : 2_000;
const BURST_FOLDERS = 40;
const HOOK_EVERY_MS = 3_000;
/** The round alone is counted over whole seconds' worth of the governor's spacing (about 10 s). */
const ALONE_MS = Math.round(10_000 / (RATE * spacingMs(RATE))) * RATE * spacingMs(RATE);
const FIRM = {
  companies: SHORT ? 300 : 3_000,
  trusts: 0,
  documentsPerEntity: 1,
  attachmentsPerDocument: 1,
  attachmentBytes: 0,
  seed: 11,
};
const HOOK = { clientCode: 'BENCH', secret: 'bench-secret' };
const UPLOADS = /^POST \S+\/attachments 201$/;

interface Run {
  readonly webhook: number[];
  readonly burstMs: number;
  readonly aloneRate: number;
  readonly burstRate: number;
  readonly tooMany: number;
}

const sum = (c: SimCounters, route: RegExp) =>
  Object.entries(c.api.byRoute)
    .filter(([r]) => route.test(r))
    .reduce((n, [, count]) => n + count, 0);

async function measure(cli: string | undefined, label: string): Promise<Run> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: 0 });
  const dir = scratch(`lanes-${label}`);
  try {
    const seeded = await seedSyncedStore(sim, dir);
    // Migrations 12 (open pushes' keys) and 13 on came after it; today's store has none of 13's
    // `local_work` (18 carried it into `entity_work`), and the work rows are empty.
    if (cli) asBaselineSchema(path.join(dir, 'state', 'docsync.db'), 11, ['entity_work']);
    await sim.admin('PUT', '/rate-limit', rateLimitBody(RATE));
    await sim.resetCounters();
    const config = {
      settleSeconds: 1,
      queue: { requestsPerSecond: RATE, concurrency: 4 },
      webhook: { enabled: true, listen: '127.0.0.1:0', ...HOOK },
    };
    const daemon = await startDaemon(sim, dir, config, 120_000, cli);
    try {
      await sim.admin('PUT', '/webhook', { url: daemon.webhookUrl, ...HOOK });
      const docs = (await sim.admin<{ documents: { id: string }[] }>('GET', '/state')).documents;
      // No trusts: their folder is not there.
      const folders = documentFolders(seeded.root, (d) => (existsSync(d) ? readdirSync(d) : []));
      // The round alone, from its first entity listing (its set-up reads the catalogue first).
      await until(
        async () => sum(await sim.counters(), /^GET \/companies\/\{ownerId\}\/documents /) > 0,
        60_000,
        20,
      );
      const aloneFrom = await sim.counters();
      const aloneStarted = performance.now();
      await sleep(ALONE_MS);
      const burstFrom = await sim.counters();
      const aloneRate =
        ((burstFrom.api.total - aloneFrom.api.total) * 1000) / (performance.now() - aloneStarted);

      const burstStarted = performance.now();
      for (let i = 0; i < FILES; i++) {
        const folder = folders.get(docs[i % BURST_FOLDERS]!.id)!;
        writeFileSync(path.join(folder, `burst ${i}.txt`), `burst ${label} ${i}`);
      }
      const uploaded = async () => sum(await sim.counters(), UPLOADS) - sum(burstFrom, UPLOADS);
      const hooks: Promise<number>[] = [];
      let done = false;
      const burstDone = until(async () => (done = (await uploaded()) >= FILES), 1_800_000, 500);
      for (let i = 0; !done; i++) {
        const doc = docs[BURST_FOLDERS + ((i * 37) % (docs.length - BURST_FOLDERS))]!;
        const name = `hook ${i}.pdf`;
        const started = performance.now();
        await sim.admin('POST', `/documents/${doc.id}/attachments`, {
          name,
          contentBase64: Buffer.from(`%PDF-1.4 ${label} ${i}`).toString('base64'),
        });
        hooks.push(
          until(() => existsSync(path.join(folders.get(doc.id)!, name)), 1_800_000, 10).then(
            () => performance.now() - started,
          ),
        );
        await Promise.race([sleep(HOOK_EVERY_MS), burstDone]);
      }
      await burstDone;
      const burstMs = performance.now() - burstStarted;
      const after = await sim.counters();
      const webhook = await Promise.all(hooks);
      return {
        webhook,
        burstMs,
        aloneRate,
        burstRate: ((after.api.total - burstFrom.api.total) * 1000) / burstMs,
        tooMany: sum(after, / 429$/),
      };
    } finally {
      await daemon.close();
    }
  } finally {
    await sim.close();
  }
}

export async function lanesBurst(): Promise<BenchResult> {
  const fair = await measure(undefined, 'fair');
  const baseline = await measure(buildAt(BASELINE_COMMIT), 'baseline');
  const bench = `11 fair lanes during a burst${SHORT ? ' (short form)' : ''}`;
  const p95 = (run: Run) => percentile(run.webhook, 95);
  const pair = (run: Run) => `${ms(median(run.webhook))} / ${ms(p95(run))}`;
  return {
    rows: [
      {
        bench,
        measure: `webhook → file during the burst, median / p95 (${fair.webhook.length} samples; baseline ${baseline.webhook.length})`,
        figure: pair(fair),
        floor: pair(baseline),
        target: 'p95 < 2 s',
        verdict: verdict(p95(fair) < 2000),
      },
      {
        bench,
        measure: `${FILES.toLocaleString('en')} files dropped → all uploaded`,
        figure: seconds(fair.burstMs),
        floor: seconds(baseline.burstMs),
        target: 'the burst uses what the others leave',
        verdict: verdict(fair.burstMs < baseline.burstMs * 1.5),
      },
      {
        bench,
        measure: `429 answers (service limited to the same rate, ${BENCH_RATE_MODES.join(' and ')})`,
        figure: String(fair.tooMany),
        floor: String(baseline.tooMany),
        target: '0',
        verdict: verdict(fair.tooMany === 0),
      },
      {
        bench,
        measure: `rate used by the round alone (${ALONE_MS / 1000} s from its first listing)`,
        figure: `${fair.aloneRate.toFixed(2)}/s`,
        floor: `${baseline.aloneRate.toFixed(2)}/s`,
        target: `≥ 95 % of ${RATE}/s`,
        verdict: verdict(fair.aloneRate >= RATE * 0.95),
      },
      {
        bench,
        measure: 'rate used during the burst (every lane)',
        figure: `${fair.burstRate.toFixed(2)}/s`,
        floor: `${baseline.burstRate.toFixed(2)}/s`,
        target: `≥ 95 % of ${RATE}/s`,
        verdict: verdict(fair.burstRate >= RATE * 0.95),
      },
    ],
    notes: [
      `A store of ${FIRM.companies.toLocaleString('en')} companies (one document each) seeded as a first sync leaves it; the simulator limited to ${RATE} requests a second per token, ${rateModesSaid()}, the daemon at the same rate, its start round listing every entity. After ${ALONE_MS / 1000} s of the round alone, ${FILES.toLocaleString('en')} files are written into ${BURST_FOLDERS} document folders of ${BURST_FOLDERS} companies; every ${HOOK_EVERY_MS / 1000} s until they are all uploaded, an attachment is added in the simulator to a document of another company and timed until its file is in the folder (the webhook points at the daemon). Floor: the same against a fresh simulator, with the daemon built from ${BASELINE_COMMIT.slice(0, 7)} (before fair lanes and pacing: pushes always first, the rate counted when a request took its turn).`,
    ],
  };
}
