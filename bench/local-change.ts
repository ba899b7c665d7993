/**
 * Bench 3: a file written into a document folder → the attachment present in the service, with
 * the real daemon running (settle 1 s). The service side is watched through the simulator's
 * counters (a `POST …/attachments 201` is counted when the upload is stored), polled every 10 ms.
 * Floor: the settle time plus a bare `fetch` upload of the same file, measured in the same run.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { documentFolders, startDaemon, untilFirstSync } from './lib/daemon-process.js';
import { FloorClient, ownerPath } from './lib/floor-client.js';
import { type BenchResult, verdict } from './lib/result.js';
import { type SimProcess, startSimProcess } from './lib/sim-process.js';
import { median, ms, percentile, sleep, until } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const SAMPLES = 20;
const SETTLE_SECONDS = 1;
const FIRM = {
  companies: 10,
  trusts: 10,
  documentsPerEntity: 2,
  attachmentsPerDocument: 1,
  seed: 3,
};

async function uploads(sim: SimProcess): Promise<number> {
  let n = 0;
  for (const [route, count] of Object.entries((await sim.counters()).api.byRoute)) {
    if (/^POST .*\/attachments 201$/.test(route)) n += count;
  }
  return n;
}

export async function localChange(): Promise<BenchResult> {
  const sim = await startSimProcess({ seed: FIRM });
  const daemon = await startDaemon(sim, scratch('local'), { settleSeconds: SETTLE_SECONDS });
  try {
    await untilFirstSync(daemon);
    const folders = [...documentFolders(daemon.root, (d) => readdirSync(d)).values()];
    const bytes = Buffer.alloc(10 * 1024, 'x');
    const latencies: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const before = await uploads(sim);
      const started = performance.now();
      writeFileSync(path.join(folders[i % folders.length]!, `bench ${i}.txt`), bytes);
      await until(async () => (await uploads(sim)) > before, 30_000, 10);
      latencies.push(performance.now() - started);
      await sleep(200);
    }
    const floorUpload = await bareUploads(sim, bytes);
    const floor = SETTLE_SECONDS * 1000 + median(floorUpload);
    const p50 = median(latencies);
    const p95 = percentile(latencies, 95);
    const target = SETTLE_SECONDS * 1000 + 500;
    return {
      rows: [
        {
          bench: '3 local change',
          measure: `file → service, median (${SAMPLES} samples)`,
          figure: ms(p50),
          floor: ms(floor),
          target: `≤ settle + 0.5 s = ${ms(target)}`,
          verdict: verdict(p50 <= target),
        },
        {
          bench: '3 local change',
          measure: 'file → service, p95',
          figure: ms(p95),
          floor: ms(SETTLE_SECONDS * 1000 + percentile(floorUpload, 95)),
          target: `≤ ${ms(target)}`,
          verdict: verdict(p95 <= target),
        },
      ],
      notes: [
        `The real daemon (\`docsync run\`, child process, default rate 10 requests/s, simulator limit 20/s) on a firm of 20 entities × 2 documents, \`settleSeconds: ${SETTLE_SECONDS}\`; ${SAMPLES} files of 10 KiB written one after another into different document folders, 200 ms apart.`,
        'Latency: from just before `writeFileSync` to the simulator counting a `POST …/attachments 201` (polled every 10 ms through `/_admin/counters`, so figures carry up to ~10 ms of polling).',
        `Floor: the settle time (the watcher must wait it by design) plus the median of ${SAMPLES} bare \`fetch\` multipart uploads of the same file.`,
      ],
    };
  } finally {
    await daemon.close();
    await sim.close();
  }
}

async function bareUploads(sim: SimProcess, bytes: Buffer): Promise<number[]> {
  const client = new FloorClient(sim);
  await client.authorise();
  const state = await sim.admin<{
    documents: { id: string; owner: { kind: 'company' | 'trust'; id: string } }[];
  }>('GET', '/state');
  const doc = state.documents[0]!;
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const form = new FormData();
    form.append('file', new Blob([bytes]), `floor ${i}.txt`);
    const started = performance.now();
    const response = await fetch(
      `${sim.apiUrl}/${ownerPath(doc.owner)}/documents/${doc.id}/attachments`,
      {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${client.token}` },
      },
    );
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times;
}
