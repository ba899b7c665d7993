/**
 * Housekeeping as a user meets it: a store whose trash and temp folder hold old and recent
 * things, and a state holding old and recent done pushes, cycles and conflicts, then the daemon
 * (in this process, as `docsync run` assembles it) or `docsync run --once`. What is past its
 * retention goes; the rest stays, and an open conflict stays whatever its age. The daemon sweeps
 * at its start and then once a day; a run within 20 h of the last sweep skips it. The days pass
 * on a clock that stands still but for what the test moves it on.
 */
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dayStamp } from '../../src/local/trash.js';
import type { NewPush } from '../../src/state/outbox-repo.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { type InProcessDaemon, useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { TestClock } from '../helpers/test-clock.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

/** What the daemon logged so far, a message each. */
const messagesOf = (daemon: Pick<InProcessDaemon, 'log'>) => daemon.log().map((l) => l.msg);

const FIRM = { companies: 1, trusts: 1, documentsPerEntity: 1, attachmentsPerDocument: 1, seed: 3 };

interface Planted {
  readonly config: string;
  readonly env: NodeJS.ProcessEnv;
  readonly root: string;
  readonly stateFile: string;
  readonly oldTrash: string;
  readonly recentTrash: string;
  readonly staleTemp: string;
  readonly freshTemp: string;
  readonly oldPush: number;
  readonly recentPush: number;
  readonly oldCycles: readonly number[];
  readonly recentCycle: number;
  /** Recorded 120 days ago: never resolved, resolved 100 days ago, resolved 10 days ago. */
  readonly openConflict: number;
  readonly longResolved: number;
  readonly lateResolved: number;
}

/** A store and state with something past every retention and something recent beside it. */
async function plantStore(): Promise<Planted> {
  const sim = await startSim({ seed: FIRM, rateLimitPerSecond: 0 });
  const dir = tempDir();
  const config = writeCliConfig(dir, sim, { log: { level: 'info' }, schedule: NEVER });
  const root = path.join(dir, 'documents');
  const stateFile = path.join(dir, 'state', 'docsync.db');
  const now = Date.now();
  const file = (rel: string, mtimeMs = now) => {
    const abs = path.join(root, rel);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, `content of ${rel}`);
    utimesSync(abs, mtimeMs / 1000, mtimeMs / 1000);
    return abs;
  };
  const oldTrash = `.docsync/trash/${dayStamp(new Date(now - 40 * DAY))}`;
  const recentTrash = `.docsync/trash/${dayStamp(new Date(now - 2 * DAY))}`;
  file(`${oldTrash}/Companies/Acme/2020-01-01 Minutes [1]/minutes.pdf`);
  file(`${recentTrash}/Companies/Acme/2024-01-01 Return [2]/return.pdf`);
  const staleTemp = file('.docsync/tmp/killed-download.part', now - 2 * DAY);
  const freshTemp = file('.docsync/tmp/running-download.part');

  mkdirSync(path.dirname(stateFile), { recursive: true });
  const state = StateStore.open(stateFile);
  const push = (key: string, at: number) => {
    const p: NewPush = {
      owner: { kind: 'company', id: '1' },
      documentId: '1',
      kind: 'upload-attachment',
      payload: { fileName: `${key}.pdf`, sha256: 'abc', size: 1, mtimeMs: at },
    };
    const id = state.outbox.record(p, at);
    state.outbox.markSent(id, at);
    state.outbox.markDone(id, {}, at);
    return id;
  };
  const cycle = (at: number) => {
    const id = state.cycles.start({ trigger: 'cron', startedAt: at });
    state.cycles.finish(id, { result: 'ok', finishedAt: at + 1000 });
    return id;
  };
  const conflict = (resolvedAt: number | null) => {
    const id = state.conflicts.record({
      owner: { kind: 'company', id: '1' },
      documentId: '1',
      copyPath: 'Companies/Acme/2020-01-01 Minutes [1]/minutes (conflict 2020-01-01 0930).pdf',
      winner: 'remote',
      occurredAt: now - 120 * DAY,
    });
    if (resolvedAt !== null) state.conflicts.markResolved(id, 'keep-both', resolvedAt);
    return id;
  };
  const planted = {
    openConflict: conflict(null),
    longResolved: conflict(now - 100 * DAY),
    lateResolved: conflict(now - 10 * DAY),
    oldPush: push('old', now - 60 * DAY),
    recentPush: push('recent', now - DAY),
    oldCycles: [cycle(now - 62 * DAY), cycle(now - 61 * DAY), cycle(now - 60 * DAY)],
    recentCycle: cycle(now - DAY),
  };
  state.close();
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  return { config, env, root, stateFile, oldTrash, recentTrash, staleTemp, freshTemp, ...planted };
}

/** What is past its retention is gone; what is not is still there. */
function expectSwept(p: Planted): void {
  expect(existsSync(path.join(p.root, p.oldTrash))).toBe(false);
  expect(existsSync(path.join(p.root, p.recentTrash))).toBe(true);
  expect(existsSync(p.staleTemp)).toBe(false);
  expect(existsSync(p.freshTemp)).toBe(true);
  const state = StateStore.open(p.stateFile);
  try {
    expect(state.outbox.get(p.oldPush)).toBeNull();
    expect(state.outbox.get(p.recentPush)?.state).toBe('done');
    const cycles = state.cycles.list(1000).map((c) => c.id);
    for (const id of p.oldCycles) expect(cycles).not.toContain(id);
    expect(cycles).toContain(p.recentCycle);
    expect(state.conflicts.get(p.openConflict), 'an open conflict is never pruned').not.toBeNull();
    expect(state.conflicts.get(p.longResolved)).toBeNull();
    expect(state.conflicts.get(p.lateResolved)).not.toBeNull();
    expect(state.settings.housekeepingAt()).toBeGreaterThan(Date.now() - 60_000);
  } finally {
    state.close();
  }
}

const REMOVED_LINE =
  'housekeeping removed 1 trash day, 1 temp file, 1 done push, 3 cycles, 1 conflict record';

describe('housekeeping', () => {
  it('the daemon sweeps the old trash day and the stale temp file and prunes old pushes and cycles at start, then once a day', async () => {
    const p = await plantStore();
    const clock = new TestClock({ standsStill: true });
    const d = startDaemon(p.config, p.env, { clock });
    await d.started;
    expectSwept(p);
    expect(messagesOf(d)).toContain(REMOVED_LINE);
    await eventually(() => messagesOf(d).some((m) => m.startsWith('first sync finished')));

    // A trash day at the end of its retention; the fresh temp file is a day old tomorrow.
    const lastDay = `.docsync/trash/${dayStamp(new Date(clock.now() - 30 * DAY))}`;
    mkdirSync(path.join(p.root, lastDay), { recursive: true });
    const swept = () => messagesOf(d).filter((m) => m.startsWith('housekeeping removed'));

    // Not before the day is over...
    clock.advance(23 * HOUR);
    expect(clock.nextAt()).toBeGreaterThan(clock.now());
    expect(swept()).toHaveLength(1);
    expect(existsSync(path.join(p.root, lastDay))).toBe(true);
    // ...and at its end, by itself.
    clock.advance(HOUR);
    await eventually(() => swept().length === 2);
    expect(swept()[1]).toBe('housekeeping removed 1 trash day, 1 temp file');
    expect(existsSync(path.join(p.root, lastDay))).toBe(false);
    expect(existsSync(p.freshTemp)).toBe(false);
    expect(existsSync(path.join(p.root, p.recentTrash))).toBe(true);
    // And the next one a day after that.
    expect(clock.nextAt()).toBe(clock.now() + DAY);
  });

  it('docsync run --once does the same before its cycle; a run within 20 h skips it, one 20 h later runs it', async () => {
    const p = await plantStore();
    const clock = new TestClock({ standsStill: true });
    const first = await runCli(['run', '--once', '--config', p.config], { env: p.env, clock });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(REMOVED_LINE);
    expectSwept(p);

    // Daily work: a run within the day leaves even an old trash day for the next day's run.
    const another = `.docsync/trash/${dayStamp(new Date(Date.now() - 45 * DAY))}`;
    mkdirSync(path.join(p.root, another), { recursive: true });
    const firstAt = clock.now();
    const run = async (later: number) => {
      clock.advanceTo(firstAt + later);
      const result = await runCli(['run', '--once', '--config', p.config], { env: p.env, clock });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    expect(await run(20 * HOUR - 1)).not.toContain('housekeeping removed');
    expect(existsSync(path.join(p.root, another))).toBe(true);
    expect(await run(20 * HOUR)).toContain('housekeeping removed 1 trash day');
    expect(existsSync(path.join(p.root, another))).toBe(false);
  });
});
