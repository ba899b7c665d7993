/**
 * Bench 1: the initial sync of 2,000 documents with 4,000 attachments of 100 KiB across 200
 * entities, no rate limit. docsync (`runCycle`, the first, full cycle) against a floor making
 * the same requests and the same durable writes. Rounds alternate so page-cache and writeback
 * effects fall on both alike; the best round of each is compared.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { runCycle } from '../src/engine/run-cycle.js';
import { openEngine } from './lib/engine.js';
import {
  FloorClient,
  limiter,
  mkdirp,
  type Owner,
  ownerPath,
  writeDurable,
} from './lib/floor-client.js';
import { type BenchResult, verdict } from './lib/result.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { seconds } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const FIRM = {
  companies: 100,
  trusts: 100,
  documentsPerEntity: 10,
  attachmentsPerDocument: 2,
  attachmentBytes: 100 * 1024,
  seed: 8,
};
const ROUNDS = 3;

export async function initialSync(): Promise<BenchResult> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: 0 });
  try {
    const docsync: number[] = [];
    const floor: number[] = [];
    let docsyncRequests = 0;
    let floorRequests = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await sim.resetCounters();
      docsync.push(await timeDocsync(sim));
      docsyncRequests = (await sim.counters()).api.total;
      await sim.resetCounters();
      floor.push(await timeFloor(sim));
      floorRequests = (await sim.counters()).api.total;
    }
    const best = Math.min(...docsync);
    const bestFloor = Math.min(...floor);
    const ratio = best / bestFloor;
    return {
      rows: [
        {
          bench: '1 initial sync',
          measure: `wall time, 2,000 docs / 4,000 × 100 KiB (${ratio.toFixed(2)}×)`,
          figure: seconds(best),
          floor: seconds(bestFloor),
          target: '≤ 1.25× floor',
          verdict: verdict(ratio <= 1.25),
        },
        {
          bench: '1 initial sync',
          measure: 'API requests made',
          figure: String(docsyncRequests),
          floor: String(floorRequests),
          target: 'same requests',
          verdict: 'info',
        },
      ],
      notes: [
        `Simulator in its own process (fairer: its CPU is not charged to the subject's event loop), no rate limit, concurrency 4. Best of ${ROUNDS} alternating rounds; all docsync rounds: ${docsync.map(seconds).join(', ')}; floor: ${floor.map(seconds).join(', ')}.`,
        'docsync: `runCycle` (first cycle, full) with the real client (got for every request: the API and the download links), FsLocalStore and SQLite on a temp file, as `compose.ts` wires them.',
        'Floor: plain `fetch` with the same limits (4 API requests, 4 link downloads at once): token, status types, companies, trusts, per entity the document list, per document its details, per attachment a link and the download; the same durability as docsync (temp file, fsync, rename, fsync of the folder for every attachment and every `.document.json`/`.entity.json`) and a sha256 of every download, but no validation, no state database, no retries.',
      ],
    };
  } finally {
    await sim.close();
  }
}

export async function timeDocsync(sim: SimProcess): Promise<number> {
  const engine = await openEngine(sim, scratch('initial'));
  try {
    const started = performance.now();
    const report = await runCycle(engine.deps, { trigger: 'once', fullReconcile: true });
    const elapsed = performance.now() - started;
    if (report.result !== 'ok') throw new Error(`docsync initial sync: ${report.result}`);
    return elapsed;
  } finally {
    engine.close();
  }
}

export async function timeFloor(sim: SimProcess): Promise<number> {
  const root = path.join(scratch('floor'), 'documents');
  const tmp = path.join(root, '.tmp');
  mkdirSync(tmp, { recursive: true });
  const client = new FloorClient(sim);
  const started = performance.now();
  await client.authorise();
  await client.get('/cas/documents/statusTypes');
  const companies = await client.list('/cas/companies', 'companies');
  const trusts = await client.list('/cas/trusts', 'trusts');
  const owners: Owner[] = [
    ...companies.map((c) => ({ kind: 'company' as const, id: String(c.id) })),
    ...trusts.map((t) => ({ kind: 'trust' as const, id: String(t.id) })),
  ];
  const entities = limiter(4);
  await Promise.all(
    owners.map((owner) =>
      entities(async () => {
        const folder = path.join(root, `${owner.kind}-${owner.id}`);
        await mkdirp(folder);
        await writeDurable(tmp, path.join(folder, '.entity.json'), JSON.stringify(owner));
        const docs = await client.list(`/${ownerPath(owner)}/documents`, 'documents');
        await Promise.all(
          docs.map((doc) => pullDocument(client, owner, String(doc.id), folder, tmp)),
        );
      }),
    ),
  );
  return performance.now() - started;
}

async function pullDocument(
  client: FloorClient,
  owner: Owner,
  id: string,
  entityFolder: string,
  tmp: string,
): Promise<void> {
  const details = await client.get(`/${ownerPath(owner)}/documents/${id}`);
  const folder = path.join(entityFolder, id);
  await mkdirp(folder);
  await writeDurable(tmp, path.join(folder, '.document.json'), JSON.stringify(details, null, 2));
  await Promise.all(
    (details.attachments as { id: string; name: string }[]).map((a) =>
      client.download(owner, id, a.id, tmp, path.join(folder, a.name)),
    ),
  );
}
