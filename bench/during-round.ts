/**
 * Bench 9: responsiveness and the budget during a long poll round (issue 16): 1,200 entities at
 * the default 10 requests a second, the service limited to the same rate; the daemon's start
 * round lists all 1,200, which takes two minutes and more. While it runs:
 * - a file written into a document folder → the attachment in the service (settle 1 s);
 * - an attachment added in the service → the file on disk, through the signed webhook;
 * - the achieved request rate, the 429s, and each lane's share of the requests and its wait.
 * Baseline, in the same run: the same samples once the round is over (an idle daemon). Last,
 * SIGTERM during a second start's round → the process gone.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spacingMs } from '../src/domain/request-governor.js';
import { documentFolders, startDaemon } from './lib/daemon-process.js';
import { rateLimitBody, rateModesSaid } from './lib/rate-modes-env.js';
import { type BenchResult, verdict } from './lib/result.js';
import { seedSyncedStore } from './lib/seed-synced-store.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { median, ms, percentile, sleep, until } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const RATE = 10;
const SETTLE_SECONDS = 1;
const SAMPLES = 8;
/** The round alone is counted over whole seconds' worth of the governor's spacing (about 20 s). */
const SECOND_OF_REQUESTS = RATE * spacingMs(RATE);
const ALONE_WINDOWS = Math.round(20_000 / SECOND_OF_REQUESTS);
const POLL_ALONE_MS = ALONE_WINDOWS * SECOND_OF_REQUESTS;
const FIRM = {
  companies: 900,
  trusts: 300,
  documentsPerEntity: 1,
  attachmentsPerDocument: 1,
  attachmentBytes: 0, // tiny PDFs: what the seeded store can write without downloading
  seed: 9,
};
const HOOK = { clientCode: 'BENCH', secret: 'bench-secret' };

type Dump = { documents: { id: string }[] };

interface Samples {
  readonly local: number[];
  readonly webhook: number[];
}

/** Reads one labelled value of the daemon's /metrics. */
function metric(text: string, name: string, lane: string): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && l.includes(`lane="${lane}"`) && !l.includes('what='));
  return Number(line?.split(' ').at(-1) ?? Number.NaN);
}

async function takeSamples(
  sim: SimProcess,
  folders: Map<string, string>,
  docs: Dump['documents'],
  label: string,
): Promise<Samples> {
  const local: number[] = [];
  const webhook: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const doc = docs[(i * 37) % docs.length]!; // spread over the round's order
    const folder = folders.get(doc.id)!;
    const name = `${label} local ${i}.txt`;
    const started = performance.now();
    writeFileSync(path.join(folder, name), `bench ${label} ${i}`);
    await until(
      async () =>
        (
          await sim.admin<{ documents: { id: string; attachments: { name: string }[] }[] }>(
            'GET',
            `/state`,
          )
        ).documents
          .find((d) => d.id === doc.id)!
          .attachments.some((a) => a.name === name),
      60_000,
      50,
    );
    local.push(performance.now() - started);

    const other = docs[(i * 37 + 11) % docs.length]!;
    const hookName = `${label} hook ${i}.pdf`;
    const hookStarted = performance.now();
    await sim.admin('POST', `/documents/${other.id}/attachments`, {
      name: hookName,
      contentBase64: Buffer.from(`%PDF-1.4 ${label} ${i}`).toString('base64'),
    });
    await until(() => existsSync(path.join(folders.get(other.id)!, hookName)), 60_000, 5);
    webhook.push(performance.now() - hookStarted);
    await sleep(500);
  }
  return { local, webhook };
}

export async function duringRound(): Promise<BenchResult> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: 0 });
  const dir = scratch('round');
  try {
    const seeded = await seedSyncedStore(sim, dir);
    await sim.admin('PUT', '/rate-limit', rateLimitBody(RATE));
    // Seeding listed every entity: counted, those listings would pass for the round's first.
    await sim.resetCounters();
    const config = {
      settleSeconds: SETTLE_SECONDS,
      queue: { requestsPerSecond: RATE, concurrency: 4 },
      webhook: { enabled: true, listen: '127.0.0.1:0', ...HOOK },
    };
    const daemon = await startDaemon(sim, dir, config);
    const statusUrl = /"url":"([^"]+)","msg":"status page listening"/.exec(daemon.output())![1]!;
    await sim.admin('PUT', '/webhook', { url: daemon.webhookUrl, ...HOOK });
    const docs = (await sim.admin<Dump>('GET', '/state')).documents;
    const folders = documentFolders(seeded.root, (d) => readdirSync(d));
    // Polling alone first: the round with nothing else to do, once it lists entities. Its
    // start reads the catalogue (status types, then the companies' and trusts' pages), a few
    // requests that each wait for the one before: that is the round's set-up, not its pace.
    await until(
      async () =>
        Object.keys((await sim.counters()).api.byRoute).some((r) =>
          /^GET \/(companies|trusts)\/\{ownerId\}\/documents /.test(r),
        ),
      30_000,
      20,
    );
    await sim.resetCounters();
    const aloneStarted = performance.now();
    await sleep(POLL_ALONE_MS);
    const aloneRate =
      ((await sim.counters()).api.total * 1000) / (performance.now() - aloneStarted);
    await sim.resetCounters();
    const busyStarted = performance.now();

    const busy = await takeSamples(sim, folders, docs, 'busy');
    const busyMs = performance.now() - busyStarted;
    const counters = await sim.counters();
    const metricsText = await (await fetch(`${statusUrl}/metrics`)).text();
    const roundLeft = Number(
      /docsync_poll_round_entities_left (\d+)/.exec(metricsText)?.[1] ?? Number.NaN,
    );
    const tooMany = Object.entries(counters.api.byRoute)
      .filter(([route]) => route.endsWith(' 429'))
      .reduce((n, [, c]) => n + c, 0);
    const achieved = (counters.api.total * 1000) / busyMs;
    const lanes = ['push', 'webhook', 'watcher', 'poll'].map((lane) => {
      const sent = metric(metricsText, 'docsync_lane_requests_total', lane);
      const waited = metric(metricsText, 'docsync_lane_wait_seconds_total', lane);
      return { lane, sent, waitMs: sent > 0 ? (waited * 1000) / sent : 0 };
    });
    const sentAll = lanes.reduce((n, l) => n + l.sent, 0);

    // The baseline: the same samples once the round is over.
    await until(
      async () =>
        /docsync_poll_round_entities_left 0\b/.test(
          await (await fetch(`${statusUrl}/metrics`)).text(),
        ),
      600_000,
      1000,
    );
    const idle = await takeSamples(sim, folders, docs, 'idle');
    await daemon.close();

    // SIGTERM during the round of a second start.
    const again = await startDaemon(sim, dir, config);
    await sleep(5_000);
    const stopStarted = performance.now();
    await again.close(); // SIGTERM, then the process's exit
    const stopMs = performance.now() - stopStarted;

    const bench = '9 during a poll round';
    const budgetLimit = settleTarget();
    const higher = lanes.filter((l) => l.lane !== 'poll' && l.sent > 0);
    const poll = lanes.find((l) => l.lane === 'poll')!;
    return {
      rows: [
        {
          bench,
          measure: `file → service, median / p95 (${SAMPLES} samples; floor: the idle daemon after the round)`,
          figure: `${ms(median(busy.local))} / ${ms(percentile(busy.local, 95))}`,
          floor: `${ms(median(idle.local))} / ${ms(percentile(idle.local, 95))}`,
          target: `≤ settle + 1 s = ${ms(budgetLimit)}`,
          verdict: verdict(percentile(busy.local, 95) <= budgetLimit),
        },
        {
          bench,
          measure: 'webhook → file, median / p95',
          figure: `${ms(median(busy.webhook))} / ${ms(percentile(busy.webhook, 95))}`,
          floor: `${ms(median(idle.webhook))} / ${ms(percentile(idle.webhook, 95))}`,
          target: 'p95 < 1 s',
          verdict: verdict(percentile(busy.webhook, 95) < 1000),
        },
        {
          bench,
          measure: 'SIGTERM → exit, during the start round',
          figure: ms(stopMs),
          floor: '-',
          target: '< 5 s',
          verdict: verdict(stopMs < 5000),
        },
        {
          bench,
          measure: `achieved rate, the round alone (${ALONE_WINDOWS} × ${SECOND_OF_REQUESTS} ms from its first entity listing)`,
          figure: `${aloneRate.toFixed(2)}/s`,
          floor: `${RATE}/s`,
          target: `≥ 95 % of ${RATE}/s`,
          verdict: verdict(aloneRate >= RATE * 0.95),
        },
        {
          bench,
          measure: `achieved rate with webhooks and local changes beside the round (${(busyMs / 1000).toFixed(0)} s; ${roundLeft} of ${FIRM.companies + FIRM.trusts} entities still to list after)`,
          figure: `${achieved.toFixed(2)}/s`,
          floor: `${RATE}/s`,
          target: `≥ 80 %: 2 slots of 10 kept free while other lanes are active`,
          verdict: verdict(achieved >= RATE * 0.8 * (1000 / 1040)),
        },
        {
          bench,
          measure: '429 answers from a service limited to the same rate',
          figure: String(tooMany),
          floor: '0',
          target: '0',
          verdict: verdict(tooMany === 0),
        },
        {
          bench,
          measure: 'requests per lane while busy: share, average queue wait',
          figure: lanes
            .map((l) => `${l.lane} ${Math.round((100 * l.sent) / sentAll)} % ${ms(l.waitMs)}`)
            .join('; '),
          floor: '-',
          target: 'higher lanes wait less than polling',
          verdict: verdict(higher.every((l) => l.waitMs < poll.waitMs)),
        },
      ],
      notes: [
        `A store of ${FIRM.companies + FIRM.trusts} entities (one document each) seeded as a first sync leaves it; the simulator limited to ${RATE} requests a second per token, ${rateModesSaid()}, the daemon at the same rate; its start round lists every entity (${(FIRM.companies + FIRM.trusts) / RATE} s at the least).`,
        `${(POLL_ALONE_MS / 1000).toFixed(2)} s of the round alone (its achieved rate), from its first entity listing: the round's set-up reads the catalogue first, a few requests that wait for each other. Requests leave ${spacingMs(RATE)} ms apart (src/domain/request-governor.ts: a second and 50 ms per ${RATE}, for the network's jitter), so ${(1000 / spacingMs(RATE)).toFixed(2)}/s is the most it allows, and the round alone is counted over ${ALONE_WINDOWS} whole runs of ${RATE} of them; then, while the round runs, ${SAMPLES} times: a file written into a document folder, timed until the simulator holds the attachment; then an attachment added in the simulator, timed until the file is in its folder (the webhook points at the daemon). Documents are spread over the round's order. The same after the round, as the baseline. Rate, 429s and lanes are over the busy samples. Every lane's requests take the same spacing; a webhook's request takes the next turn ahead of the polls waiting (src/domain/fair-lanes.ts); lane figures from the daemon's /metrics (docsync_lane_requests_total, docsync_lane_wait_seconds_total).`,
      ],
    };
  } finally {
    await sim.close();
  }
}

function settleTarget(): number {
  return SETTLE_SECONDS * 1000 + 1000;
}
