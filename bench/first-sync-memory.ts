/**
 * Bench 14: the daemon's peak memory during the first sync of a firm shaped as issue 35's
 * (5,000 entities: 3,000 companies, 2,000 trusts; 10,000 documents; one and a half files a
 * document) at a rate far above the service's (300 requests a second), where what is in flight
 * depends on what bounds it: a count and bytes, or the rate. Today's daemon beside the daemon
 * built from BASELINE, each started on an empty store against a fresh simulator, in the same run.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildAt } from './lib/baseline-build.js';
import { CLI, startDaemon } from './lib/daemon-process.js';
import { memoryOf } from './lib/proc-usage.js';
import { type BenchResult, verdict } from './lib/result.js';
import { startSimProcess } from './lib/sim-process.js';
import { seconds, sleep } from './lib/stats.js';
import { scratch } from './lib/temp.js';

/** The commit before in-flight work was bounded by count and bytes. */
const BASELINE = process.env.BENCH14_BASELINE ?? '977d891';
const RATE = Number(process.env.BENCH14_RATE ?? 300);
const SCALE = Number(process.env.BENCH14_SCALE ?? 1);
const FIRM = {
  companies: Math.round(3000 * SCALE),
  trusts: Math.round(2000 * SCALE),
  documentsPerEntity: 2,
  // Every other document with two files: 1.5 a document, as the issue's firm had.
  attachmentsPerDocument: 2,
  attachmentBytes: 0,
  seed: 14,
};
const TARGET = 300e6;
const MB = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

interface Run {
  readonly hwm: number;
  readonly documents: number;
  readonly ms: number;
}

async function firstSync(cli: string, label: string): Promise<Run> {
  const sim = await startSimProcess({ seed: FIRM, rateLimitPerSecond: 0 });
  try {
    const dir = scratch(`first-sync-${label}`);
    const started = performance.now();
    const daemon = await startDaemon(
      sim,
      dir,
      // At the defaults but the rate (concurrency 4), as the issue's daemon ran.
      { queue: { requestsPerSecond: RATE, concurrency: 4 } },
      1_800_000,
      cli,
      true,
    );
    try {
      const db = new Database(path.join(dir, 'state', 'docsync.db'), { readonly: true });
      const done = db.prepare("SELECT value FROM settings WHERE key = 'initialSyncDone'").pluck();
      const deadline = Date.now() + 1_800_000;
      while (done.get() !== '1') {
        if (Date.now() > deadline) throw new Error('the first sync did not end in 30 min');
        await sleep(500);
      }
      const documents = db.prepare('SELECT count(*) FROM base_documents').pluck().get() as number;
      db.close();
      return { hwm: memoryOf(daemon.pid).hwm, documents, ms: performance.now() - started };
    } finally {
      await daemon.close();
    }
  } finally {
    await sim.close();
  }
}

export async function firstSyncMemory(): Promise<BenchResult> {
  // BENCH14_BASELINE=none: today's daemon alone (the floor then reads '-').
  const before = BASELINE === 'none' ? null : await firstSync(buildAt(BASELINE), 'baseline');
  if (before)
    process.stderr.write(`bench 14: baseline ${MB(before.hwm)} in ${seconds(before.ms)}\n`);
  const now = await firstSync(CLI, 'today');
  process.stderr.write(`bench 14: today ${MB(now.hwm)} in ${seconds(now.ms)}\n`);
  const bench = '14 memory of the first sync';
  const entities = FIRM.companies + FIRM.trusts;
  const documents = entities * FIRM.documentsPerEntity;
  return {
    rows: [
      {
        bench,
        measure: `peak RSS, first sync of ${documents.toLocaleString('en')} documents over ${entities.toLocaleString('en')} entities at ${RATE} requests/s (${seconds(now.ms)}, ${now.documents} in step${before ? `; floor: built from ${BASELINE}, ${seconds(before.ms)}, ${before.documents} in step` : ''})`,
        figure: MB(now.hwm),
        floor: before ? MB(before.hwm) : '-',
        target: `< ${MB(TARGET)}`,
        verdict: verdict(now.hwm < TARGET && now.documents === documents),
      },
    ],
    notes: [
      `${FIRM.companies.toLocaleString('en')} companies and ${FIRM.trusts.toLocaleString('en')} trusts, ${FIRM.documentsPerEntity} documents each with ${FIRM.attachmentsPerDocument} tiny attachments, in a simulator of its own process with no rate limit; the real daemon (\`docsync run\`) on an empty store at queue.requestsPerSecond ${RATE} (BENCH14_RATE) and concurrency 4, until the state records the first sync done. Peak: the daemon's VmHWM then. Floor: the same with the daemon built from ${BASELINE} (BENCH14_BASELINE), against a fresh simulator, in the same run. BENCH14_SCALE scales the entities.`,
    ],
  };
}
