/**
 * Issue 28 at the level a user reaches: a real daemon against a simulator that refuses requests
 * over its limit in any sliding or calendar second (both counted, answering 429).
 * - Fair lanes: files dropped into folders make a burst of pushes that would take every turn of
 *   the rate; a webhook arriving in the middle of it still lands long before the burst ends,
 *   and the burst finishes.
 * - No 429 of our making: rounds back to back over the firm, with a webhook and local changes
 *   beside them, cross round boundaries and lane changes without one 429.
 * The rules behind both (the governor's spacing, a turn in four) are proven to the millisecond
 * on a virtual clock in test/unit/request-governor.test.ts and test/unit/request-queue-*.test.ts;
 * here each behaviour is proven once, by counts a busy machine does not change.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { answered, listsServed } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

const RATE = 12;
const CONCURRENCY = 4;
/**
 * The simulator's limit. The simulator shares this process and stamps a request when this
 * process gets to it: a stall here stamps late what docsync sent on time, beside what it sent
 * after. The requests stamped late in a second were in flight at its start, at most CONCURRENCY
 * of them, so a docsync that keeps RATE on its own clock never meets more than RATE +
 * CONCURRENCY at the simulator, however long the stall; a docsync that lost its window (a new
 * round or lane counted afresh, a window a third too short) goes past it.
 */
const SIM_LIMIT = RATE + CONCURRENCY;

/**
 * A simulated firm and a store in step with it, made by an unthrottled `--once`; then the
 * simulator enforces SIM_LIMIT in both windows for the daemon under test.
 */
async function firmInStep(companies: number, documentsPerEntity = 1) {
  const firm = await startSim({
    rateLimitPerSecond: 0,
    seed: { companies, trusts: 0, documentsPerEntity, attachmentsPerDocument: 1 },
  });
  const dir = tempDir();
  const env = { DOCSYNC_REFRESH_TOKEN: firm.admin.mintRefreshToken() };
  const fast = writeCliConfig(dir, firm, { queue: { requestsPerSecond: 1000, concurrency: 8 } });
  const once = await runCli(['run', '--once', '--config', fast], { env, timeoutMs: 30_000 });
  expect(once.code, once.stderr).toBe(0);
  firm.admin.setRateLimit(SIM_LIMIT, { modes: ['sliding', 'calendar'] });
  firm.admin.resetCounters();
  const root = path.join(dir, 'documents');
  const folderOf = (id: string) => {
    for (const entity of readdirSync(path.join(root, 'Companies'))) {
      const found = readdirSync(path.join(root, 'Companies', entity)).find((f) =>
        f.endsWith(`[${id}]`),
      );
      if (found) return path.join(root, 'Companies', entity, found);
    }
    throw new Error(`no folder for document ${id}`);
  };
  return { sim: firm, dir, env, folderOf };
}

async function startWithWebhook(s: Simulator, dir: string, env: NodeJS.ProcessEnv, cron: string) {
  const config = writeCliConfig(dir, s, {
    settleSeconds: 0.3,
    log: { level: 'info' },
    queue: { requestsPerSecond: RATE, concurrency: CONCURRENCY },
    schedule: { cron, fullReconcileCron: '0 0 1 1 *' },
    webhook: { enabled: true, listen: '127.0.0.1:0', clientCode: 'FIRM1', secret: 'hook-secret' },
  });
  const daemon = startDaemon(config, env);
  await daemon.started;
  let url: string | undefined;
  await eventually(() => {
    url = /"url":"([^"]+)","msg":"webhook receiver listening"/.exec(daemon.output())?.[1];
    return url !== undefined;
  });
  s.admin.setWebhook({ url: url!, clientCode: 'FIRM1', secret: 'hook-secret' });
  return daemon;
}

/** A line of the daemon's JSON log, with the fields these tests read. */
interface LogLine {
  readonly msg: string;
  readonly action?: string;
  readonly file?: string;
  readonly eventId?: string;
}

/** The complete lines so far (the last may be still being written). */
function logLines(output: string): LogLine[] {
  return output
    .slice(0, output.lastIndexOf('\n'))
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

describe('docsync run: fair lanes and no 429 of our making', () => {
  it('lands a webhook long before a burst of dropped files that takes the rate ends, and finishes the burst', async () => {
    // Files dropped into 24 document folders of 4 companies: their syncs upload side by side,
    // so pushes always wait in the queue (one folder's files go up one after another, leaving
    // gaps any lane would take).
    const { sim, dir, env, folderOf } = await firmInStep(5, 6);
    const daemon = await startWithWebhook(sim, dir, env, '0 0 1 1 *');
    const docs = (await sim.admin.dump()).documents;
    const hookDoc = docs.at(-1)!;
    const burstDocs = docs.filter((d) => d.owner.id !== hookDoc.owner.id);
    const FILES = 4 * burstDocs.length;
    // Read from the counters, not a dump: the simulator shares this process, and a dump of its
    // state every 200 ms would delay when it sees requests arrive.
    const uploaded = () => answered(sim, 201);
    // Written without blocking: the simulator shares this process, and files written in one go
    // stall it as the daemon starts.
    for (let i = 0; i < FILES; i++) {
      const doc = burstDocs[i % burstDocs.length]!;
      await writeFile(path.join(folderOf(doc.id), `scan ${i}.txt`), `page ${i}`);
    }
    await eventually(() => uploaded() >= 4, 30_000);

    const hookAt = Date.now();
    sim.admin.addAttachment(hookDoc.id, { name: 'Arrived mid-burst.pdf', bytes: '%PDF-1.4 hook' });
    await eventually(
      () => readdirSync(folderOf(hookDoc.id)).includes('Arrived mid-burst.pdf'),
      60_000,
    );
    const landedMs = Date.now() - hookAt;

    // Judged by what the daemon did, in the order it logged it: the uploads it made between
    // receiving the webhook and pulling its file. A busy machine slows the webhook's sync and
    // the burst alike, and neither the delivery nor this process's stalls count. Without fair
    // lanes the webhook waited for the whole burst (92 uploads); with them each of its few
    // requests waits for three pushes' turns at most (2 to 21 uploads, quiet or loaded).
    const hookEvents = new Set(
      sim.admin
        .webhookDeliveries()
        .filter((delivery) => delivery.documentId === hookDoc.id)
        .map((delivery) => delivery.eventId),
    );
    let log: LogLine[] = [];
    let pulled = -1;
    await eventually(() => {
      log = logLines(daemon.output());
      pulled = log.findIndex(
        (line) => line.action === 'pull-attachment' && line.file === 'Arrived mid-burst.pdf',
      );
      return pulled >= 0;
    });
    const received = log.findIndex(
      (line) => line.msg === 'webhook event received' && hookEvents.has(line.eventId ?? ''),
    );
    expect(received, 'the webhook received').toBeGreaterThanOrEqual(0);
    const uploadsWhileWaiting = log
      .slice(received, pulled)
      .filter((line) => line.action === 'push-attachment').length;
    expect(
      uploadsWhileWaiting,
      `uploads while the webhook waited (landed in ${landedMs} ms)`,
    ).toBeLessThan(FILES / 2);
    // Every file once (a 429 would be retried, not lost).
    await eventually(() => uploaded() === FILES, 60_000);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  }, 90_000);

  it('earns no 429 across round boundaries and lane changes', async () => {
    const COMPANIES = 12;
    const { sim, dir, env, folderOf } = await firmInStep(COMPANIES);
    // A round every second: each takes about that at RATE, so the next waits for it and starts
    // as it ends.
    const daemon = await startWithWebhook(sim, dir, env, '* * * * * *');
    const docs = (await sim.admin.dump()).documents;
    await eventually(() => listsServed(sim) >= COMPANIES / 2, 30_000);
    // Other lanes come and go during the rounds: local files, then a webhook.
    for (let i = 0; i < 12; i++) {
      writeFileSync(path.join(folderOf(docs[i % 3]!.id), `note ${i}.txt`), `note ${i}`);
    }
    sim.admin.addAttachment(docs.at(-1)!.id, { name: 'Mid-round.pdf', bytes: '%PDF-1.4 x' });
    await eventually(
      () => readdirSync(folderOf(docs.at(-1)!.id)).includes('Mid-round.pdf'),
      30_000,
    );
    // At least two round boundaries crossed: every entity listed three times over.
    await eventually(() => listsServed(sim) >= 3 * COMPANIES, 60_000);
    expect(answered(sim, 429), '429 answers').toBe(0);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  }, 90_000);
});
