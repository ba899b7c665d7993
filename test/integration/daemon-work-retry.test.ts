/**
 * The work asked for an entity is done only when a sync of it succeeded, at the level a user
 * reaches: the daemon as `docsync run` assembles it, in this process, the simulator on port 0, a
 * real folder. A file dropped while the service cannot list the company's documents is not
 * forgotten with the sync that failed: once the service recovers it goes up, with no poll round,
 * no webhook and no other change to bring it: the entity's row is tried again after its backoff,
 * in the lane it was asked in.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentFolderOf, firmInStep, NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

describe('a change whose sync fails while the service is down', () => {
  it('goes up by its own sync tried again once the service recovers, not by a poll', async () => {
    const dir = tempDir();
    const firm = await firmInStep(startSim, dir, {
      companies: 1,
      trusts: 1,
      documentsPerEntity: 1,
      attachmentsPerDocument: 1,
      seed: 37,
    });
    const { sim, root, env } = firm;
    // No round, no sweep, no webhook: only the failed sync's own row can bring the file.
    const config = firm.config({
      settleSeconds: 0.2,
      schedule: { ...NEVER, unlodgedSweepShare: 0 },
      webhook: { enabled: false },
    });
    const daemon = startDaemon(config, env);
    await daemon.started;
    await eventually(() => daemon.output().includes('poll round finished'));

    const doc = (await sim.admin.dump()).documents.find((d) => d.owner.kind === 'company')!;
    const { folder } = documentFolderOf(root, 'Companies', doc.id);
    // An answer the client does not retry, so the sync fails at once.
    sim.admin.setFaults({ routes: { '/companies/{ownerId}/documents': 400 } });
    writeFileSync(path.join(folder, 'late scan.pdf'), '%PDF-1.4 late');
    await eventually(
      () => daemon.output().includes('sync failed; it is tried again after a wait'),
      30_000,
    );
    const uploaded = async () =>
      (await sim.admin.dump()).documents
        .find((d) => d.id === doc.id)!
        .attachments.some((a) => a.name === 'late scan.pdf');
    expect(await uploaded()).toBe(false);
    // What waits, and why, for a person who asks meanwhile.
    const status = await runCli(['status', '--config', config], { env });
    expect(status.stdout).toMatch(/Syncs waiting: 1 entity \(1 failing\)/);
    expect(status.stdout).toMatch(
      /Generated 1 Pty Ltd \(company [^)]+\): failed 1 time \(GET \/companies\/\{companyId\}\/documents answered 400[^\n]*; tried again at \d{4}-/,
    );

    sim.admin.setFaults({});
    await eventually(uploaded, 30_000);
    // Brought by the failed sync's own retry, in its lane, not by a poll of the entity (a
    // change makes it hot, so a poll would come too, later).
    const pushedBy = () =>
      daemon.app.state.cycles
        .list(10)
        .find((c) => c.owner?.id === doc.owner.id && (c.counts?.pushed ?? 0) > 0)?.trigger;
    await eventually(() => pushedBy() !== undefined); // recorded as its cycle ends
    expect(pushedBy()).toBe('watcher');
    await eventually(() => daemon.app.state.work.all().length === 0);
    const after = await runCli(['status', '--config', config], { env });
    expect(after.stdout).toContain('Syncs waiting: none');
    await daemon.stop();
  }, 60_000);
});
