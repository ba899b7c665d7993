/**
 * Bench 13: remote change → folder without webhooks, with the firm-wide hint (issue 28) and
 * without it, in the same run. One simulator holds a firm of 5,000 entities (3,000 companies,
 * 2,000 trusts, 10,000 documents) limited to 10 requests a second per access token; two real
 * daemons, each on its own copy of the store and its own token at the default 10 requests a
 * second, no webhooks, rounds back to back (the cron every 5 minutes, each round ~10 minutes):
 * one with the sweep of the firm's unlodged list at its default share (5 %), one with it off
 * (`schedule.unlodgedSweepShare: 0`: polling as before). Every change made in the service
 * reaches both, and is timed until each folder shows it:
 * - unlodged company documents: a new status (a quarter of them LODGED, which takes the form
 *   off the list) and a new form: what the hint can see;
 * - everything else: a new status of a trust's document, an attachment added anywhere: what it
 *   cannot see, and which the sweep's share of the rate must not slow down much.
 * Also measured: the sweep's share of the hinted daemon's requests, and what one sweep of each
 * firm-wide list costs at this firm (the other hints the API offers, docs/real-service.md).
 *
 * `BENCH_HINT_SHORT=1` runs a small form (500 entities, a round each minute, 2 minutes of
 * changes; about 4 minutes) to see that it measures what it should; its figures mean little.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type DaemonProcess, documentFolders, startDaemon } from './lib/daemon-process.js';
import { random } from './lib/random.js';
import { rateLimitBody, rateModesSaid } from './lib/rate-modes-env.js';
import { type BenchResult, verdict } from './lib/result.js';
import { seedSyncedStore } from './lib/seed-synced-store.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { median, percentile, sleep } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const SHORT = process.env.BENCH_HINT_SHORT === '1';
const RATE = 10;
const SHARE = 0.05;
const FIRM = SHORT
  ? { companies: 300, trusts: 200, documentsPerEntity: 2, attachmentsPerDocument: 1 }
  : { companies: 3_000, trusts: 2_000, documentsPerEntity: 2, attachmentsPerDocument: 1 };
const SEED = { ...FIRM, attachmentBytes: 0, seed: 28 };
/** Changes are made this long, one every CHANGE_EVERY_MS, then each waits up to LAND_MS. */
const CHANGES_MS = SHORT ? 120_000 : 600_000;
const CHANGE_EVERY_MS = SHORT ? 5_000 : 15_000;
const LAND_MS = SHORT ? 180_000 : 1_200_000;
const CRON = SHORT ? '* * * * *' : '*/5 * * * *';
/** Before the first change: two whole sweeps, so a form gone from the list can be judged. */
const WARMUP_MS = 30_000;
const STATUS_TYPES: readonly [number, string][] = [
  [2, 'DOCUMENT PREPARED'],
  [3, 'SENT TO CLIENT'],
  [10, 'RECEIVED'],
  [11, 'DOCUMENT RECEIVED'],
  [12, 'DOCUMENT PROCESSED'],
];
const LODGED: [number, string] = [21, 'LODGED'];

interface DumpDoc {
  id: string;
  owner: { kind: 'company' | 'trust'; id: string };
  asicDocNumber: string | null;
  status: { type: string };
}

type Kind = 'unlodged status' | 'new form' | 'trust status' | 'attachment';
const HINTED_KINDS: readonly Kind[] = ['unlodged status', 'new form'];

/** A change made in the service, and how to see it in a store (`root`). */
interface Change {
  readonly kind: Kind;
  readonly madeAt: number;
  readonly seen: (root: string) => boolean;
  /** When each daemon's folder showed it (ms after `madeAt`); null while it has not. */
  landed: [number | null, number | null];
}

/** What the simulator holds, as far as the changes need it: documents and their folders. */
class Firm {
  readonly #next = random(28);
  readonly docs: DumpDoc[];
  /** Each document's folder, relative to a store's root; each company's folder. */
  readonly #folders = new Map<string, string>();
  readonly #companyFolders = new Map<string, string>();
  #formNumber = 4_200_000;

  constructor(
    private readonly sim: SimProcess,
    docs: DumpDoc[],
    root: string,
  ) {
    this.docs = docs;
    const byId = new Map(docs.map((d) => [d.id, d]));
    for (const [id, folder] of documentFolders(root, (d) => readdirSync(d))) {
      const relative = path.relative(root, folder);
      this.#folders.set(id, relative);
      const owner = byId.get(id)?.owner;
      if (owner?.kind === 'company') this.#companyFolders.set(owner.id, path.dirname(relative));
    }
  }

  #pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.#next() * list.length)]!;
  }

  /**
   * The next change, by turn: unlodged status, trust status, new form, attachment. Half are
   * changes the hint cannot see, so "no worse" rests on as many samples as the hint's figure.
   */
  async make(turn: number): Promise<Change> {
    return [
      () => this.#unlodgedStatus(),
      () => this.#trustStatus(),
      () => this.#newForm(),
      () => this.#attachment(),
    ][turn % 4]!();
  }

  async #status(doc: DumpDoc, kind: Kind, [typeId, type]: [number, string]): Promise<Change> {
    await this.sim.admin('POST', `/documents/${doc.id}/statuses`, { typeId });
    doc.status = { type };
    const folder = this.#folders.get(doc.id)!;
    return this.#change(kind, (root) => statusOf(path.join(root, folder)) === type);
  }

  #unlodgedStatus(): Promise<Change> {
    const unlodged = this.docs.filter(
      (d) => d.owner.kind === 'company' && d.asicDocNumber !== null && d.status.type !== 'LODGED',
    );
    const doc = this.#pick(unlodged);
    const status =
      this.#next() < 0.25
        ? LODGED
        : this.#pick(STATUS_TYPES.filter(([, name]) => name !== doc.status.type));
    return this.#status(doc, 'unlodged status', [...status]);
  }

  #trustStatus(): Promise<Change> {
    const doc = this.#pick(this.docs.filter((d) => d.owner.kind === 'trust'));
    return this.#status(doc, 'trust status', [
      ...this.#pick(STATUS_TYPES.filter(([, name]) => name !== doc.status.type)),
    ]);
  }

  async #newForm(): Promise<Change> {
    const companyId = this.#pick([...this.#companyFolders.keys()]);
    const asicDocNumber = `2E${this.#formNumber++}`;
    const created = await this.sim.admin<{ id: number }>('POST', '/documents', {
      owner: { kind: 'company', id: companyId },
      name: 'Form 484 change of details',
      asicDocNumber,
      statusTypeId: 2,
    });
    const id = String(created.id);
    this.docs.push({
      id,
      owner: { kind: 'company', id: companyId },
      asicDocNumber,
      status: { type: 'DOCUMENT PREPARED' },
    });
    const entity = this.#companyFolders.get(companyId)!;
    return this.#change('new form', (root) => {
      const name = readdirSync(path.join(root, entity)).find((f) => f.endsWith(`[${id}]`));
      if (!name) return false;
      this.#folders.set(id, path.join(entity, name));
      return statusOf(path.join(root, entity, name)) === 'DOCUMENT PREPARED';
    });
  }

  async #attachment(): Promise<Change> {
    const doc = this.#pick(this.docs.filter((d) => this.#folders.has(d.id)));
    const name = `bench hint ${Math.floor(this.#next() * 1e9)}.pdf`;
    await this.sim.admin('POST', `/documents/${doc.id}/attachments`, {
      name,
      contentBase64: Buffer.from(`%PDF-1.4 ${name}`).toString('base64'),
    });
    const folder = this.#folders.get(doc.id)!;
    return this.#change('attachment', (root) => existsSync(path.join(root, folder, name)));
  }

  #change(kind: Kind, seen: (root: string) => boolean): Change {
    return { kind, madeAt: performance.now(), seen, landed: [null, null] };
  }
}

function statusOf(folder: string): string | null {
  try {
    return JSON.parse(readFileSync(path.join(folder, '.document.json'), 'utf8')).status ?? null;
  } catch {
    return null; // not there yet, or being replaced
  }
}

/** One labelled value of a daemon's /metrics, summed over the lines that match. */
async function metricSum(daemon: DaemonProcess, name: string, match = ''): Promise<number> {
  const status = /"url":"([^"]+)","msg":"status page listening"/.exec(daemon.output())![1]!;
  const text = await (await fetch(`${status}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && l.includes(match))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

/** The poll rounds' lengths a daemon logged ("poll round finished: N entities in S s"). */
function roundSeconds(daemon: DaemonProcess): number[] {
  return [...daemon.output().matchAll(/poll round finished: \d+ entities in (\d+) s/g)].map((m) =>
    Number(m[1]),
  );
}

/** Requests one sweep of each firm-wide list costs at this firm (500 items a request). */
async function listCosts(sim: SimProcess, unlodged: number) {
  const dump = await sim.admin<{ companies: unknown[]; trusts: unknown[]; contacts: unknown[] }>(
    'GET',
    '/state',
  );
  const pages = (n: number) => Math.max(1, Math.ceil(n / 500));
  return {
    unlodged: pages(unlodged),
    companies: pages(dump.companies.length),
    trusts: pages(dump.trusts.length),
    contacts: pages(dump.contacts.length),
  };
}

export async function hintFreshness(): Promise<BenchResult> {
  const sim = await startSimProcess({ seed: SEED, rateLimitPerSecond: 0 });
  try {
    const stores: { dir: string; root: string }[] = [];
    for (const name of ['hinted', 'plain']) {
      const dir = scratch(`hint-${name}`);
      stores.push({ dir, root: (await seedSyncedStore(sim, dir)).root });
    }
    await sim.admin('PUT', '/rate-limit', rateLimitBody(RATE));
    const docs = (await sim.admin<{ documents: DumpDoc[] }>('GET', '/state')).documents;
    const firm = new Firm(sim, docs, stores[0]!.root);
    const unlodgedAtStart = docs.filter(
      (d) => d.owner.kind === 'company' && d.asicDocNumber !== null && d.status.type !== 'LODGED',
    ).length;
    const config = (share: number) => ({
      queue: { requestsPerSecond: RATE, concurrency: 4 },
      // Rounds back to back, as at a firm whose round outlasts the cron interval (the short
      // form's round takes about a minute).
      schedule: { cron: CRON, fullReconcileCron: '0 0 1 1 *', unlodgedSweepShare: share },
    });
    const daemons = await Promise.all([
      startDaemon(sim, stores[0]!.dir, config(SHARE), 600_000),
      startDaemon(sim, stores[1]!.dir, config(0), 600_000),
    ]);
    try {
      await sleep(WARMUP_MS);
      const sweepBefore = await metricSum(daemons[0], 'docsync_service_requests_total', 'unlodged');
      const allBefore = await metricSum(daemons[0], 'docsync_service_requests_total');
      const startedAt = performance.now();
      const changes: Change[] = [];
      const look = () => {
        const now = performance.now();
        for (const change of changes) {
          for (const i of [0, 1] as const) {
            if (change.landed[i] === null && change.seen(stores[i]!.root)) {
              change.landed[i] = now - change.madeAt;
            }
          }
        }
      };
      for (let turn = 0; performance.now() - startedAt < CHANGES_MS; turn++) {
        changes.push(await firm.make(turn));
        const next = startedAt + (turn + 1) * CHANGE_EVERY_MS;
        while (performance.now() < next) {
          look();
          await sleep(250);
        }
      }
      const sweepMs = performance.now() - startedAt;
      const sweepRequests =
        (await metricSum(daemons[0], 'docsync_service_requests_total', 'unlodged')) - sweepBefore;
      const allRequests =
        (await metricSum(daemons[0], 'docsync_service_requests_total')) - allBefore;
      const lastMadeAt = changes.at(-1)!.madeAt;
      while (
        changes.some((c) => c.landed.includes(null)) &&
        performance.now() - lastMadeAt < LAND_MS
      ) {
        look();
        await sleep(250);
      }
      const costs = await listCosts(sim, unlodgedAtStart);
      return report({
        changes,
        sweepRequests,
        allRequests,
        sweepMs,
        rounds: daemons.map(roundSeconds) as [number[], number[]],
        costs,
        unlodgedAtStart,
      });
    } finally {
      await Promise.all(daemons.map((d) => d.close()));
    }
  } finally {
    await sim.close();
  }
}

function report(run: {
  changes: Change[];
  sweepRequests: number;
  allRequests: number;
  sweepMs: number;
  rounds: [number[], number[]];
  costs: Awaited<ReturnType<typeof listCosts>>;
  unlodgedAtStart: number;
}): BenchResult {
  const bench = '13 freshness, firm-wide hint';
  const latencies = (kinds: readonly Kind[], i: 0 | 1) =>
    run.changes.filter((c) => kinds.includes(c.kind)).map((c) => c.landed[i] ?? LAND_MS);
  const missed = (kinds: readonly Kind[], i: 0 | 1) =>
    run.changes.filter((c) => kinds.includes(c.kind) && c.landed[i] === null).length;
  const others: Kind[] = ['trust status', 'attachment'];
  const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const pair = (v: number[]) => `${s(median(v))} / ${s(percentile(v, 95))}`;
  const hinted = [latencies(HINTED_KINDS, 0), latencies(HINTED_KINDS, 1)] as const;
  const other = [latencies(others, 0), latencies(others, 1)] as const;
  const byKind = (kind: Kind) =>
    `${kind} ${s(median(latencies([kind], 0)))} (${s(median(latencies([kind], 1)))} without)`;
  const share = run.sweepRequests / run.allRequests;
  const sweepRate = (run.sweepRequests * 1000) / run.sweepMs;
  const notLanded = (kinds: readonly Kind[]) =>
    `${missed(kinds, 0)} / ${missed(kinds, 1)} not in the folder after ${s(LAND_MS)} (counted as ${s(LAND_MS)})`;
  return {
    rows: [
      {
        bench,
        measure: `unlodged company documents (new status, new form): remote change → folder, p50 / p95, no webhooks (${hinted[0].length} changes; floor: the sweep off); ${notLanded(HINTED_KINDS)}`,
        figure: pair(hinted[0]),
        floor: pair(hinted[1]),
        target: 'p50 ≤ 30 s',
        verdict: verdict(median(hinted[0]) <= 30_000),
      },
      {
        bench,
        measure: `every other change (a trust document's status, an attachment), p50 / p95 (${other[0].length} changes); ${notLanded(others)}`,
        figure: pair(other[0]),
        floor: pair(other[1]),
        target: 'no worse: p50 ≤ 1.1 × floor',
        verdict: verdict(median(other[0]) <= median(other[1]) * 1.1),
      },
      {
        bench,
        measure: 'median by kind (the sweep off in brackets)',
        figure: (['unlodged status', 'new form', 'trust status', 'attachment'] as const)
          .map(byKind)
          .join('; '),
        floor: '-',
        target: '-',
        verdict: 'info',
      },
      {
        bench,
        measure: `the sweep's requests: share of the hinted daemon's, and per second (${run.sweepRequests} of ${run.allRequests} over ${s(run.sweepMs)})`,
        figure: `${(100 * share).toFixed(1)} %; ${sweepRate.toFixed(2)}/s`,
        floor: `${SHARE * 100} % of ${RATE}/s = ${(SHARE * RATE).toFixed(2)}/s`,
        target: `≤ ${SHARE * 100} % of the rate`,
        verdict: verdict(sweepRate <= SHARE * RATE * 1.02),
      },
      {
        bench,
        measure: 'poll rounds finished (seconds each; the sweep off in the floor)',
        figure: run.rounds[0].join(', ') || '-',
        floor: run.rounds[1].join(', ') || '-',
        target: '-',
        verdict: 'info',
      },
      {
        bench,
        measure: `requests for one sweep of each firm-wide list at this firm (500 items a request; ${run.unlodgedAtStart} unlodged documents)`,
        figure: `unlodged ${run.costs.unlodged}; companies ${run.costs.companies}; trusts ${run.costs.trusts}; contacts ${run.costs.contacts}`,
        floor: `${FIRM.companies + FIRM.trusts} (one list per entity)`,
        target: '-',
        verdict: 'info',
      },
    ],
    notes: [
      `One simulator (its own process) holding ${FIRM.companies.toLocaleString('en')} companies and ${FIRM.trusts.toLocaleString('en')} trusts with ${FIRM.documentsPerEntity} documents each (30 % of company documents carry an ASIC form, 7 in 8 of those not lodged), limited to ${RATE} requests a second per access token, ${rateModesSaid()}; two stores seeded as a first sync leaves them (bench/lib/seed-synced-store.ts); two real daemons (\`docsync run\`, child processes, ${RATE} requests/s, no webhooks, \`schedule.cron\` every 5 minutes so rounds run back to back, no full reconcile after the start's), each with its own token: one with \`schedule.unlodgedSweepShare\` ${SHARE} (the default), the floor with 0. Both start together, so their rounds list the entities in the same order.`,
      `After ${WARMUP_MS / 1000} s, one change every ${CHANGE_EVERY_MS / 1000} s for ${CHANGES_MS / 60_000} minutes through the simulator's admin API, in turn: a new status of an unlodged company document (a quarter of them LODGED, which takes it off the list), a new status of a trust's document, a new form (an ASIC number, status DOCUMENT PREPARED) in a company, an attachment added to any document; documents and companies picked at random (seeded). Each change is timed until each store's folder shows it (its \`.document.json\` status, its folder, its file), looked at every 250 ms, for up to ${LAND_MS / 60_000} minutes after the last change; one not seen by then counts as that long.`,
      `The sweep's share: the hinted daemon's \`docsync_service_requests_total\` for the unlodged route against all its requests over the minutes of changes. The last row counts the requests one pass over each firm-wide list takes at this firm, from the simulator's counts: what each would cost as a hint (docs/real-service.md says what each could see).`,
      SHORT
        ? 'Run in its short form (BENCH_HINT_SHORT=1, a few minutes): its figures only show that it measures.'
        : '',
    ].filter(Boolean),
  };
}
