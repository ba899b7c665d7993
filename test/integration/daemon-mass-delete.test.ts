/**
 * Issue 25, case 5, at the level a user reaches: the daemon as `docsync run` assembles it, in
 * this process (the real watcher, client, state and listeners), the simulator on port 0, a real
 * folder. Document folders removed under the daemon wait `safety.deleteHoldSeconds` (the default
 * 60 s) before they count; the ones that fall due together are judged together, over the whole
 * store, so a burst is seen whole instead of passing in slices; once a rail holds, every delete
 * waits for a person.
 *
 * The daemon keeps time by a clock that stands still but for what the test moves it on
 * (test-clock.ts): however long this machine takes to see the burst, no hold ends before the
 * test moves the clock past it, and then it ends at once.
 */
import { readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OwnerRef } from '../../src/domain/types.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { type InProcessDaemon, useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { served } from '../helpers/sim-counters.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { TestClock } from '../helpers/test-clock.js';

/** A firm's first sync, a daemon and a dozen commands beside it, on a busy machine. */
const BUSY_MACHINE_MS = 60_000;

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

/** What the daemon logged so far, a message each. */
const messagesOf = (daemon: Pick<InProcessDaemon, 'log'>) => daemon.log().map((l) => l.msg);

/** The default `safety.deleteHoldSeconds`. */
const HOLD_MS = 60_000;

interface HeldRow {
  readonly documentId: string;
  readonly side: 'local' | 'remote';
  readonly decision: string | null;
  readonly waitingUntil: string | null;
  readonly reason: string;
}

/**
 * A firm of `documents` documents over four companies and a trust, a store in step with it
 * (made by `--once`), and the daemon started on it with the default rails and hold.
 */
async function daemonInStep(documents: number) {
  const sim = await startSim({
    rateLimitPerSecond: 0,
    seed: { companies: 4, trusts: 1, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 25 },
  });
  const company = (await sim.admin.dump()).companies[0]!;
  for (let i = 20; i < documents; i++)
    sim.admin.createDocument({
      owner: { kind: 'company', id: String(company.id) },
      name: `Extra ${i}`,
    });
  const dir = tempDir();
  const root = path.join(dir, 'documents');
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const config = writeCliConfig(dir, sim, {
    settleSeconds: 0.3,
    // Only the watcher, the hold and decisions start syncs after the daemon's catch-up.
    schedule: NEVER,
    log: { level: 'info' },
  });
  const once = await runCli(['run', '--once', '--config', config], { env });
  expect(once.code, once.stderr).toBe(0);
  const clock = new TestClock({ standsStill: true });
  const daemon = startDaemon(config, env, { clock });
  await daemon.started;
  // The start's catch-up is done once its round is logged: the folder is in step.
  await eventually(() => messagesOf(daemon).some((m) => m.startsWith('poll round finished')));
  const folders = documentFolders(root);
  expect(folders).toHaveLength(documents);
  const held = async (): Promise<HeldRow[]> => {
    const { stdout } = await runCli(['deletes', '--json', '--config', config], { env });
    return JSON.parse(stdout) as HeldRow[];
  };
  const dump = () => sim.admin.dump();
  const inService = async () => (await dump()).documents.map((d) => d.id);
  const ownerOf = async (id: string): Promise<OwnerRef> => {
    const { owner } = (await dump()).documents.find((d) => d.id === id)!;
    return { kind: owner.kind, id: String(owner.id) };
  };
  const deletesInService = () => served(sim, /^DELETE \S*\/documents\/[^/]+ 2\d\d$/);
  return {
    dir,
    root,
    env,
    config,
    clock,
    ...daemon,
    folders,
    held,
    inService,
    ownerOf,
    deletesInService,
  };
}

/** Every document folder of the store: its path and its document id. */
function documentFolders(root: string): { path: string; id: string }[] {
  return ['Companies', 'Trusts'].flatMap((top) =>
    readdirSync(path.join(root, top)).flatMap((entity) =>
      readdirSync(path.join(root, top, entity))
        .filter((f) => /\[\d+\]$/.test(f))
        .map((f) => ({ path: path.join(root, top, entity, f), id: /\[(\d+)\]$/.exec(f)![1]! })),
    ),
  );
}

const dueAt = (row: HeldRow) => Date.parse(row.waitingUntil!);

describe('docsync run: a mass delete is seen whole (issue 25, case 5)', {
  timeout: BUSY_MACHINE_MS,
}, () => {
  it('18 of 23 document folders removed in a burst: nothing is deleted in the service, every one is held for a person', async () => {
    const d = await daemonInStep(23);
    const removed = d.folders.slice(0, 18);
    for (const f of removed) rmSync(f.path, { recursive: true });

    // Each removal waits its hold, however long the burst takes to be seen.
    let rows: HeldRow[] = [];
    await eventually(async () => {
      // Not one delete reaches the service meanwhile (on the base commit: 10 of the 18 did).
      expect(d.deletesInService(), 'documents deleted in the service').toBe(0);
      rows = await d.held();
      return rows.length === 18 && rows.every((r) => r.waitingUntil !== null);
    }, 30_000);
    expect(messagesOf(d)).toContainEqual(
      expect.stringMatching(/waits? until .*safety\.deleteHoldSeconds 60/),
    );

    // The holds end together: the deletes fall due at once and are judged together.
    d.clock.advanceTo(Math.max(...rows.map(dueAt)));
    await eventually(async () => {
      rows = await d.held();
      return rows.length === 18 && rows.every((r) => r.waitingUntil === null);
    });
    expect(d.deletesInService()).toBe(0);

    // Long past every hold and the rail's window, each entity synced again: still nothing
    // deleted, and every one waits for a person.
    d.clock.advance(24 * 3_600_000);
    const owners = await Promise.all(removed.map((f) => d.ownerOf(f.id)));
    for (const owner of new Set(owners.map((o) => JSON.stringify(o))))
      expect(await d.daemon.request({ trigger: 'watcher', owner: JSON.parse(owner) })).toBe(
        'synced',
      );
    rows = await d.held();
    expect(rows.map((r) => r.documentId).sort()).toEqual(removed.map((f) => f.id).sort());
    expect(rows.every((r) => r.side === 'remote' && r.decision === null)).toBe(true);
    expect(rows.every((r) => r.waitingUntil === null)).toBe(true);
    expect(d.deletesInService()).toBe(0);
    expect(await d.inService()).toHaveLength(23);
    expect(readdirSync(path.join(d.root, '.docsync', 'trash')).length).toBe(0);

    // The log says so truthfully: one verdict held them all, and nothing was deleted.
    const verdicts = d.log().filter((l) => l.level >= 50 && /safety\.maxDelete/.test(l.msg));
    expect(verdicts.length).toBeGreaterThan(0);
    expect(verdicts[0]!.msg).toMatch(/^18 of 23 documents \(78%\)/);
    expect(verdicts[0]!.msg).toContain('18 held');
    expect(messagesOf(d).some((m) => m.includes('deleted the document in the service'))).toBe(
      false,
    );

    // `docsync status` says the same.
    const status = await runCli(['status', '--config', d.config], { env: d.env });
    expect(status.stdout).toContain('Held deletes: 18');
    expect(status.stdout).toMatch(/decide with `[^`]* --config \S+ deletes approve\|discard`/);

    await d.daemon.close();
    await expect(d.daemon.finished()).resolves.toBeUndefined();
  });

  it('a single removed folder is deleted in the service after the hold, not before', async () => {
    const d = await daemonInStep(20);
    const [gone] = d.folders;
    const owner = await d.ownerOf(gone!.id);
    const removedAt = d.clock.now();
    rmSync(gone!.path, { recursive: true });

    // Meanwhile it waits, and `docsync status`, `docsync deletes` and the log say until when.
    let status = '';
    await eventually(async () => {
      status = (await runCli(['status', '--config', d.config], { env: d.env })).stdout;
      return status.includes('Deletes in their hold time: 1');
    });
    expect(status).toContain(`${gone!.id} `);
    expect(status).toMatch(/delete in the service waits until \d{4}-/);
    expect(status).toContain('Held deletes: 0');
    const [row] = await d.held();
    const due = dueAt(row!);
    expect(due).toBeGreaterThanOrEqual(removedAt + HOLD_MS);
    expect(messagesOf(d)).toContainEqual(
      expect.stringMatching(/was removed from the store: its delete in the service waits until/),
    );

    // A millisecond before the hold ends, a sync of its entity still leaves the document alone.
    d.clock.advanceTo(due - 1);
    expect(await d.daemon.request({ trigger: 'watcher', owner })).toBe('synced');
    expect(await d.inService()).toContain(gone!.id);
    expect(d.deletesInService()).toBe(0);
    expect(await d.held()).toHaveLength(1);

    // When it ends, the daemon syncs the entity by itself, and the delete goes.
    d.clock.advanceTo(due);
    await eventually(async () => !(await d.inService()).includes(gone!.id));
    await eventually(async () => (await d.held()).length === 0);
    expect(d.deletesInService()).toBe(1);
  });

  it('a folder removed and put back within the hold deletes nothing', async () => {
    const d = await daemonInStep(20);
    const [away] = d.folders;
    const owner = await d.ownerOf(away!.id);
    const outside = path.join(d.dir, 'dragged-away');
    renameSync(away!.path, outside);
    await eventually(async () => (await d.held()).length === 1);
    renameSync(outside, away!.path);

    // The sync after it is back drops the delete, long before the hold would have ended.
    await eventually(async () => (await d.held()).length === 0);
    expect(messagesOf(d)).toContainEqual(
      expect.stringMatching(/is back in the store .*: its delete in the service is dropped$/),
    );
    // Past the hold, and synced again: nothing reaches the service.
    d.clock.advance(HOLD_MS + 1000);
    expect(await d.daemon.request({ trigger: 'watcher', owner })).toBe('synced');
    expect(await d.held()).toEqual([]);
    expect(d.deletesInService()).toBe(0);
    expect(await d.inService()).toContain(away!.id);
  });
});
