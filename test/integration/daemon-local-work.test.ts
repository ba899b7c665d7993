/**
 * Issue 28, "local work is found at start without asking the service", at the level a user
 * reaches: a daemon stopped (as SIGTERM stops it) in the middle of pushing a folder of files,
 * started again while its start round has many entities to list before the one with the files.
 * The files left behind go up at once, long before the round reaches their entity, and `docsync
 * status` says they wait meanwhile (it said "Pending pushes: 0").
 *
 * Both daemons are `docsync run`'s (createDaemon), in this process; SIGTERM's path to the close
 * is daemon.test's. The uploads are held at the service's door (holdCalls) where the test must
 * act while they are under way, rather than slowed down to give it time.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentFolderOf, firmInStep } from '../helpers/daemon-firm.js';
import { holdCalls, useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { listsServed } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

const FILES = 40;
/** Uploads the first daemon makes before it is stopped. */
const BEFORE_STOP = 5;
/** Never synced, so the restart's round lists them before the entity with the files. */
const NEW_COMPANIES = 120;
/**
 * The rate the round and the uploads share: the round's lists alone take 6 s at it, the files
 * left a quarter of that even with every request theirs. The order, not the pace, is asserted.
 */
const RATE = 20;

describe('docsync run after a stop in the middle of a push', () => {
  it('uploads the files left behind at once, before the round reaches them, and status says they wait', async () => {
    const dir = tempDir();
    const firm = await firmInStep(startSim, dir, {
      companies: 2,
      trusts: 1,
      documentsPerEntity: 1,
      attachmentsPerDocument: 1,
      seed: 28,
    });
    const { sim, env } = firm;
    const config = firm.config({
      settleSeconds: 0.3,
      queue: { requestsPerSecond: RATE, concurrency: 4 },
    });
    const doc = (await sim.admin.dump()).documents.find((d) => d.owner.kind === 'company')!;
    const { folder } = documentFolderOf(firm.root, 'Companies', doc.id);
    const names = Array.from({ length: FILES }, (_, i) => `scan ${String(i).padStart(2, '0')}.pdf`);
    const inService = async () => {
      const held = (await sim.admin.dump()).documents.find((d) => d.id === doc.id)!;
      return held.attachments.filter((a) => names.includes(a.name)).map((a) => a.name);
    };

    const first = startDaemon(config, env);
    await first.started;
    await eventually(() => first.output().includes('poll round finished'));
    // The first few uploads go through; the next waits at the door while the daemon is stopped.
    let uploads = 0;
    const door = holdCalls(first.app, 'uploadAttachment', () => ++uploads > BEFORE_STOP);
    for (const name of names) writeFileSync(path.join(folder, name), `%PDF-1.4 ${name}`);
    await eventually(() => door.held() > 0, 30_000);
    const stopped = first.stop();
    door.release();
    await stopped;
    expect(first.output()).toContain('docsync daemon stopped');
    const left = FILES - (await inService()).length;
    expect(left).toBeGreaterThan(10);

    // The firm grew meanwhile: the restart's round lists the new companies first (never synced),
    // then the one with the files.
    sim.admin.seed({ companies: NEW_COMPANIES, trusts: 0, documentsPerEntity: 0, seed: 29 });
    sim.admin.resetCounters();
    const again = startDaemon(config, env);
    // Its first upload waits at the door until `docsync status` has been asked.
    const door2 = holdCalls(again.app, 'uploadAttachment', () => true);
    await again.started;
    await eventually(() => door2.held() > 0);
    const status = await runCli(['status', '--config', config], { env });
    door2.release();
    expect(status.code, status.stderr).toBe(0);
    const waiting = /Local changes waiting: (\d+) files in 1 document of 1 entity/.exec(
      status.stdout,
    );
    expect(waiting, status.stdout).not.toBeNull();
    // The one in flight at the stop may have reached the service without its answer recorded.
    expect(Number(waiting![1])).toBeGreaterThanOrEqual(left);
    expect(Number(waiting![1])).toBeLessThanOrEqual(left + 1);

    await eventually(async () => (await inService()).length === FILES, 30_000);
    // Up while the round still listed the new companies: it never reached the files' entity.
    expect(listsServed(sim)).toBeLessThan(NEW_COMPANIES);
    // Each file once: nothing sent twice across the stop.
    expect((await inService()).sort()).toEqual(names);
    await eventually(async () => {
      const after = await runCli(['status', '--config', config], { env });
      return after.stdout.includes('Local changes waiting: none');
    });
  }, 90_000);
});
