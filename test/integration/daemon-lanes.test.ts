/**
 * Issue 16 at the level a user reaches: a real daemon in a poll round that lasts about 25 s (80
 * entities at 4 requests a second), and a file dropped into a folder and a webhook's new
 * attachment both get through long before the round ends, counted in the round's own lists
 * (which a busy machine slows as much as the rest); SIGTERM stops it in seconds. How the queue
 * orders and paces the lanes is proven on a virtual clock in test/unit/request-queue-*.test.ts.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { eventually, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { listsServed } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

const ENTITIES = 80;

/**
 * A simulated firm (one small document per entity) and a store in step with it, made by an
 * unthrottled `--once`, so the daemon under test starts on it. `fast` is that config's path:
 * writeCliConfig writes dir/docsync.json each time, so rewrite it before using it again.
 */
async function firmInStep(companies: number, trusts: number) {
  const firm = await startSim({
    rateLimitPerSecond: 0, // the daemon's own queue sets the pace
    seed: {
      companies,
      trusts,
      documentsPerEntity: 1,
      attachmentsPerDocument: 1,
      attachmentBytes: 200,
    },
  });
  const dir = tempDir();
  const env = { DOCSYNC_REFRESH_TOKEN: firm.admin.mintRefreshToken() };
  const fast = writeCliConfig(dir, firm, { queue: { requestsPerSecond: 1000, concurrency: 8 } });
  const once = await runCli(['run', '--once', '--config', fast], { env, timeoutMs: 30_000 });
  expect(once.code, once.stderr).toBe(0);
  return { sim: firm, dir, root: path.join(dir, 'documents'), env, fast };
}

describe('docsync run: a local change and a webhook overtake a long poll round', () => {
  it('uploads a dropped file and lands a webhook attachment while the round has most entities left', async () => {
    const { sim, dir, root, env } = await firmInStep(60, 20);

    const config = writeCliConfig(dir, sim, {
      settleSeconds: 0.3,
      log: { level: 'info' },
      queue: { requestsPerSecond: 4, concurrency: 4 },
      schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
      webhook: { enabled: true, listen: '127.0.0.1:0', clientCode: 'FIRM1', secret: 'hook-secret' },
    });
    const daemon = startDaemon(config, env);
    await daemon.started;
    const hookUrl = await (async () => {
      let url: string | undefined;
      await eventually(() => {
        url = /"url":"([^"]+)","msg":"webhook receiver listening"/.exec(daemon.output())?.[1];
        return url !== undefined;
      });
      return url!;
    })();
    sim.admin.setWebhook({ url: hookUrl, clientCode: 'FIRM1', secret: 'hook-secret' });
    // The start's full round is under way: it lists every entity, 4 a second at most.
    const before = listsServed(sim);
    await eventually(() => listsServed(sim) > before + 4);

    const docs = (await sim.admin.dump()).documents;
    const folderOf = (id: string) => {
      for (const top of ['Companies', 'Trusts']) {
        for (const entity of readdirSync(path.join(root, top))) {
          const found = readdirSync(path.join(root, top, entity)).find((f) =>
            f.endsWith(`[${id}]`),
          );
          if (found) return path.join(root, top, entity, found);
        }
      }
      throw new Error(`no folder for document ${id}`);
    };

    // A file dropped into a folder reaches the service.
    const local = docs.at(-1)!;
    writeFileSync(path.join(folderOf(local.id), 'dropped during the round.txt'), 'mid-round');
    await eventually(async () => {
      const doc = (await sim.admin.dump()).documents.find((d) => d.id === local.id);
      return doc?.attachments.some((a) => a.name === 'dropped during the round.txt') ?? false;
    });
    const afterUpload = listsServed(sim) - before;

    // A webhook's new attachment lands in the folder.
    const remote = docs.at(-2)!;
    sim.admin.addAttachment(remote.id, { name: 'Arrived mid-round.pdf', bytes: '%PDF-1.4 hook' });
    await eventually(() => readdirSync(folderOf(remote.id)).includes('Arrived mid-round.pdf'));
    const afterWebhook = listsServed(sim) - before;

    // Both got through with most of the round still to list.
    expect(afterUpload).toBeLessThan(ENTITIES / 2);
    expect(afterWebhook).toBeLessThan(ENTITIES / 2);

    // Stopping finishes what is in flight, not the round.
    const stopAt = Date.now();
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(Date.now() - stopAt).toBeLessThan(10_000);
    expect(listsServed(sim) - before).toBeLessThan(ENTITIES / 2);
  }, 120_000);

  it('stops within seconds while files dropped into one document are being uploaded; the next run uploads the rest once', async () => {
    const { sim, dir, root, env, fast } = await firmInStep(2, 0);

    const config = writeCliConfig(dir, sim, {
      settleSeconds: 0.3,
      log: { level: 'info' },
      queue: { requestsPerSecond: 3, concurrency: 2 },
      schedule: { cron: '0 0 1 1 *', fullReconcileCron: '0 0 1 1 *' },
    });
    const daemon = startDaemon(config, env);
    await daemon.started;
    const doc = (await sim.admin.dump()).documents[0]!;
    const company = readdirSync(path.join(root, 'Companies')).find((c) =>
      readdirSync(path.join(root, 'Companies', c)).some((f) => f.endsWith(`[${doc.id}]`)),
    )!;
    const folder = path.join(root, 'Companies', company);
    const docFolder = path.join(
      folder,
      readdirSync(folder).find((f) => f.endsWith(`[${doc.id}]`))!,
    );
    // Twenty seconds of uploads at 3 a second.
    const FILES = 60;
    for (let i = 0; i < FILES; i++) {
      writeFileSync(path.join(docFolder, `scan ${i}.txt`), `page ${i}`);
    }
    const uploaded = async () =>
      (await sim.admin.dump()).documents
        .find((d) => d.id === doc.id)!
        .attachments.filter((a) => a.name.startsWith('scan '));
    await eventually(async () => (await uploaded()).length >= 3, 30_000);

    const stopAt = Date.now();
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(Date.now() - stopAt).toBeLessThan(10_000);
    expect((await uploaded()).length).toBeLessThan(FILES);

    // The same file again, unthrottled (writeCliConfig writes dir/docsync.json each time).
    writeCliConfig(dir, sim, { queue: { requestsPerSecond: 1000, concurrency: 8 } });
    const last = await runCli(['run', '--once', '--config', fast], { env, timeoutMs: 30_000 });
    expect(last.code, last.stderr).toBe(0);
    const names = (await uploaded()).map((a) => a.name);
    expect(names.length).toBe(FILES);
    expect(new Set(names).size).toBe(FILES);
  }, 120_000);
});
