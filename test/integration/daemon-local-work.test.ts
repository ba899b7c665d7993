/**
 * Issue 28, "local work is found at start without asking the service", at the level a user
 * reaches: a real daemon stopped by SIGTERM in the middle of pushing a folder of files, started
 * again while its start round has many entities to list before the one with the files. The files
 * left behind go up at once, long before the round reaches their entity, and `docsync status`
 * says they wait meanwhile (it said "Pending pushes: 0").
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentFolderOf, firmInStep } from '../helpers/daemon-firm.js';
import { eventually, useDaemonProcesses } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { listsServed } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useDaemonProcesses();
const startSim = useSimulators();

const FILES = 40;
/** Never synced, so the restart's round lists them before the entity with the files. */
const NEW_COMPANIES = 120;
const RATE = 4;

describe('docsync run after a SIGTERM in the middle of a push', () => {
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
    for (const name of names) writeFileSync(path.join(folder, name), `%PDF-1.4 ${name}`);
    await eventually(async () => (await inService()).length >= 5, 30_000);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const left = FILES - (await inService()).length;
    expect(left).toBeGreaterThan(10);

    // The firm grew meanwhile: the restart's round lists the new companies first (never synced),
    // then the one with the files, at 4 requests a second: half a minute away at the least.
    sim.admin.seed({ companies: NEW_COMPANIES, trusts: 0, documentsPerEntity: 0, seed: 29 });
    sim.admin.resetCounters();
    const again = startDaemon(config, env);
    const restarted = Date.now();
    await again.started;
    // The first of them goes up within seconds of the start, not when the round gets there.
    await eventually(async () => (await inService()).length > FILES - left, 10_000);
    const status = await runCli(['status', '--config', config], { env });
    expect(status.code, status.stderr).toBe(0);
    const waiting = /Local changes waiting: (\d+) files in 1 document of 1 entity/.exec(
      status.stdout,
    );
    expect(waiting, status.stdout).not.toBeNull();
    // The one in flight at the signal may have reached the service without its answer recorded.
    expect(Number(waiting![1])).toBeGreaterThanOrEqual(left);
    expect(Number(waiting![1])).toBeLessThanOrEqual(left + 1);

    await eventually(async () => (await inService()).length === FILES, 20_000);
    const tookMs = Date.now() - restarted;
    // Up while the round still listed the new companies: it never reached the files' entity.
    expect(listsServed(sim)).toBeLessThan(NEW_COMPANIES);
    expect(tookMs).toBeLessThan(20_000);
    // Each file once: nothing sent twice across the stop.
    expect((await inService()).sort()).toEqual(names);
    await eventually(async () => {
      const after = await runCli(['status', '--config', config], { env });
      return after.stdout.includes('Local changes waiting: none');
    });
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 120_000);
});
