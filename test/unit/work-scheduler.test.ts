/**
 * The work scheduler with an in-memory host: entity syncs that take as long as a test says,
 * so the order, the exclusion and the rounds can be watched without a service. Its rows of work
 * are on a real state file.
 */
import { describe, expect, it, vi } from 'vitest';
import { type SchedulerHost, WorkScheduler } from '../../src/daemon/work-scheduler.js';
import type { Lane } from '../../src/domain/lanes.js';
import { ownerKey } from '../../src/domain/owner-key.js';
import type { OwnerRef } from '../../src/domain/types.js';
import { ECHO_MS } from '../../src/domain/work-pick.js';
import { EntityLocks } from '../../src/engine/entity-locks.js';
import type { CycleOptions, CycleReport } from '../../src/engine/run-cycle.js';
import type { StateStore } from '../../src/state/state-store.js';
import { useStateStore } from '../helpers/state-store.js';
import { TestClock } from '../helpers/test-clock.js';

const { open } = useStateStore();

const owner = (id: string): OwnerRef => ({ kind: 'company', id });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function eventuallyTrue(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await sleep(5);
  expect(check()).toBe(true);
}
const REPORT = { actions: 0, documentsFailed: 0, tripped: [] } as unknown as CycleReport;

interface Run {
  readonly key: string;
  readonly lane: Lane;
  readonly options: CycleOptions;
  readonly startedAt: number;
  /** When the scheduler handed the sync over, before the entity's lock was taken. */
  readonly calledAt: number;
  endedAt?: number;
}

function harness(
  entities: number,
  options: {
    syncMs?: number;
    whole?: boolean;
    pollsPerSecond?: number;
    /** Each sync reports this many actions (default 0), or as many as this says. */
    actions?: number | ((run: Run) => number);
    firstSync?: boolean;
    /** Syncs of these entities throw, as one whose service routes fail. */
    failing?: readonly string[];
    /** The state the rows of work are kept in (default: a fresh one). */
    state?: StateStore;
    /** What the syncs leave for later (default: nothing). */
    laterWork?: SchedulerHost['laterWork'];
    /** Each sync ends with this result (default: as REPORT says). */
    result?: () => CycleReport['result'] | undefined;
    /** The clock rows fall due on (default: the machine's, with `clock.offset`). */
    testClock?: TestClock;
  } = {},
) {
  const state = options.state ?? open();
  const locks = new EntityLocks();
  const clock = { offset: 0 };
  const runs: Run[] = [];
  const rounds: { full: boolean; entities: number }[] = [];
  const inSync = new Map<string, number>();
  let overlap = false;
  // As runCycle does: an entity's sync holds the entity's lock.
  const sync = async (opts: CycleOptions, lane: Lane, calledAt: number) => {
    const key = opts.owners ? ownerKey(opts.owners[0]!) : 'all';
    if (inSync.has(key)) overlap = true;
    inSync.set(key, 1);
    const run: Run = { key, lane, options: opts, startedAt: Date.now(), calledAt };
    runs.push(run);
    await sleep(options.syncMs ?? 20);
    inSync.delete(key);
    run.endedAt = Date.now();
    if (options.failing?.includes(key)) throw new Error('the service answered 503');
    const actions = options.actions ?? 0;
    const result = options.result?.();
    return {
      ...REPORT,
      actions: typeof actions === 'number' ? actions : actions(run),
      ...(result ? { result } : {}),
    };
  };
  const host: SchedulerHost = {
    run: (opts, lane) => {
      const calledAt = Date.now();
      return opts.owners
        ? locks.run(opts.owners[0]!, 'sync', () => sync(opts, lane, calledAt))
        : sync(opts, lane, calledAt);
    },
    startRound: async () =>
      options.whole
        ? 'whole'
        : {
            owners: Array.from({ length: entities }, (_, i) => owner(`e${i}`)),
            firstSync: options.firstSync ?? false,
          },
    finishRound: (full, reports) => rounds.push({ full, entities: reports.length }),
    pollsPerSecond: options.pollsPerSecond ?? Number.POSITIVE_INFINITY,
    pacePolls: options.pollsPerSecond !== undefined,
    now: options.testClock ? () => options.testClock!.now() : () => Date.now() + clock.offset,
    after: (ms, fire) => {
      if (options.testClock) return options.testClock.after(ms, fire);
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    },
    locks,
    work: state.work,
    laterWork: options.laterWork ?? (() => []),
  };
  const errors: unknown[] = [];
  const scheduler = new WorkScheduler(host, (e) => errors.push(e), { urgent: 4, poll: 2 });
  return {
    scheduler,
    locks,
    runs,
    rounds,
    errors,
    overlapped: () => overlap,
    clock,
    state,
  };
}

describe('WorkScheduler', () => {
  it('runs a round over every entity, stalest first, two at a time, and records it once', async () => {
    const h = harness(6);
    await h.scheduler.request({ trigger: 'cron', fullReconcile: true });
    expect(h.runs.map((r) => r.key)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `company:e${i}`));
    expect(
      h.runs.every((r) => r.lane === 'poll' && r.options.partOfRound && r.options.fullReconcile),
    ).toBe(true);
    expect(h.rounds).toEqual([{ full: true, entities: 6 }]);
    const maxAtOnce = Math.max(
      ...h.runs.map(
        (r) => h.runs.filter((o) => o.startedAt <= r.startedAt && o.endedAt! > r.startedAt).length,
      ),
    );
    expect(maxAtOnce).toBe(2);
  });

  it('starts a webhook and a watcher sync at once while a round runs, and never one entity twice', async () => {
    const h = harness(40, { syncMs: 30 });
    const round = h.scheduler.request({ trigger: 'cron' });
    await sleep(45);
    const asked = Date.now();
    await Promise.all([
      h.scheduler.request({ trigger: 'webhook', owner: owner('w') }),
      h.scheduler.request({ trigger: 'watcher', owner: owner('u') }),
    ]);
    const webhook = h.runs.find((r) => r.key === 'company:w')!;
    expect(webhook.lane).toBe('webhook');
    expect(webhook.startedAt - asked).toBeLessThan(20);
    expect(h.runs.find((r) => r.key === 'company:u')!.lane).toBe('watcher');
    expect(h.scheduler.snapshot().round?.left).toBeGreaterThan(20);
    // An entity the round is syncing now waits for it, then syncs again.
    const busy = h.runs.at(-1)!.key;
    await h.scheduler.request({
      trigger: 'watcher',
      owner: { kind: 'company', id: busy.split(':')[1]! },
    });
    await round;
    expect(h.overlapped()).toBe(false);
  });

  it("keeps the webhooks' share of the urgent slots while the watcher's syncs would fill them (work-pick rule 5)", async () => {
    // 4 urgent slots: one is kept for each of the two lanes.
    const h = harness(0, { syncMs: 300 });
    const folders = Array.from({ length: 8 }, (_, i) =>
      h.scheduler.request({ trigger: 'watcher', owner: owner(`folder${i}`) }),
    );
    await sleep(20);
    const asked = Date.now();
    await h.scheduler.request({ trigger: 'webhook', owner: owner('hook') });
    const webhook = h.runs.find((r) => r.key === 'company:hook')!;
    expect(webhook.startedAt - asked, 'not behind a watcher sync of 300 ms').toBeLessThan(150);
    await Promise.all(folders);
    // The watcher had every other slot: 3 at once before the webhook came.
    expect(h.runs.filter((r) => r.startedAt < asked && r.lane === 'watcher')).toHaveLength(3);
  });

  it('merges requests for an entity that waits into one sync, at the highest lane', async () => {
    const h = harness(0, { syncMs: 30 });
    const first = h.scheduler.request({ trigger: 'webhook', owner: owner('a') });
    await sleep(5);
    const merged = Promise.all([
      h.scheduler.request({ trigger: 'webhook', owner: owner('a') }),
      h.scheduler.request({ trigger: 'watcher', owner: owner('a') }),
      h.scheduler.request({ trigger: 'webhook', owner: owner('a'), fullReconcile: true }),
    ]);
    await Promise.all([first, merged]);
    expect(h.runs.map((r) => r.lane)).toEqual(['webhook', 'webhook']);
    expect(h.runs[1]!.options.fullReconcile).toBe(true);
  });

  it("runs a webhook about an entity the watcher is syncing after it, in the watcher's lane (work-pick rule 1)", async () => {
    const h = harness(0, { syncMs: 30 });
    const first = h.scheduler.request({ trigger: 'watcher', owner: owner('a') });
    await sleep(5);
    const echo = h.scheduler.request({ trigger: 'webhook', owner: owner('a') });
    const other = h.scheduler.request({ trigger: 'webhook', owner: owner('b') });
    expect(await Promise.all([first, echo, other])).toEqual(['synced', 'synced', 'synced']);
    const lanes = h.runs.map((r) => `${r.key} ${r.lane}`);
    expect(lanes).toEqual(['company:a watcher', 'company:b webhook', 'company:a watcher']);
    // A person's "Sync now" keeps its lane.
    const busy = h.scheduler.request({ trigger: 'watcher', owner: owner('c') });
    await sleep(5);
    await Promise.all([busy, h.scheduler.request({ trigger: 'manual', owner: owner('c') })]);
    expect(h.runs.at(-1)!.lane).toBe('webhook');
  });

  it("runs a webhook that comes just after the entity's watcher sync in the watcher's lane: the echo of its uploads (work-pick rule 1)", async () => {
    const h = harness(0, { syncMs: 5 });
    await h.scheduler.request({ trigger: 'watcher', owner: owner('a') });
    await h.scheduler.request({ trigger: 'webhook', owner: owner('a') });
    h.clock.offset += ECHO_MS;
    await h.scheduler.request({ trigger: 'webhook', owner: owner('a') });
    expect(h.runs.map((r) => r.lane)).toEqual(['watcher', 'watcher', 'webhook']);
  });

  it("runs a person's job under an entity's lock between its syncs, and other entities' syncs beside it", async () => {
    const h = harness(0, { syncMs: 30 });
    const first = h.scheduler.request({ trigger: 'watcher', owner: owner('a') });
    await sleep(5);
    const job = { start: 0, end: 0 };
    let asked: Promise<unknown> | undefined;
    const answer = h.locks.run(owner('a'), 'status page', async () => {
      job.start = Date.now();
      asked = h.scheduler.request({ trigger: 'webhook', owner: owner('a') });
      await h.scheduler.request({ trigger: 'webhook', owner: owner('b') });
      job.end = Date.now();
      return 'resolved';
    });

    expect(await answer).toBe('resolved');
    await Promise.all([first, asked]);
    expect(h.runs.map((r) => r.key)).toEqual(['company:a', 'company:b', 'company:a']);
    expect(job.start, 'after the sync running when it was asked').toBeGreaterThanOrEqual(
      h.runs[0]!.endedAt!,
    );
    expect(h.runs[2]!.startedAt, 'the sync asked for meanwhile waits').toBeGreaterThanOrEqual(
      job.end,
    );
    const failed = h.locks.run(owner('a'), 'status page', () =>
      Promise.reject(new Error('a file gone')),
    );
    await expect(failed).rejects.toThrow('a file gone');
    await h.scheduler.request({ trigger: 'watcher', owner: owner('a') });
    expect(h.runs).toHaveLength(4);
    expect(h.locks.violations).toBe(0);
  });

  it('holds a sync asked for while a lock is held in the queue, not in a slot, and starts it when the lock comes free', async () => {
    const h = harness(0, { syncMs: 10 });
    const held = await h.locks.acquire(owner('a'), 'a whole cycle');
    const waiting = h.scheduler.request({ trigger: 'webhook', owner: owner('a') });
    await h.scheduler.request({ trigger: 'webhook', owner: owner('b') });
    expect(h.runs.map((r) => r.key)).toEqual(['company:b']);
    expect(h.scheduler.snapshot()).toMatchObject({ running: 0, waiting: { webhook: 1 } });
    held.release();
    expect(await waiting).toBe('synced');
    expect(h.runs.map((r) => r.key)).toEqual(['company:b', 'company:a']);
  });

  it('resolves each request with what became of its sync: synced, failed, or stopped', async () => {
    const h = harness(0, { syncMs: 20, failing: ['company:bad'] });
    expect(await h.scheduler.request({ trigger: 'webhook', owner: owner('ok') })).toBe('synced');
    expect(await h.scheduler.request({ trigger: 'webhook', owner: owner('bad') })).toBe('failed');
    expect(h.errors).toHaveLength(1);
    const running = h.scheduler.request({ trigger: 'webhook', owner: owner('ok') });
    await sleep(5);
    const queued = h.scheduler.request({ trigger: 'watcher', owner: owner('ok') });
    await h.scheduler.stop();
    expect(await running).toBe('synced');
    expect(await queued).toBe('stopped');
    expect(await h.scheduler.request({ trigger: 'webhook', owner: owner('ok') })).toBe('stopped');
  });

  it('waits out the hot interval after a hot poll that failed, as after one that listed', async () => {
    // A failing entity repolled at once would spend the whole poll share on one 503.
    const failing: string[] = [];
    const h = harness(0, { syncMs: 5, actions: 1, failing });
    await h.scheduler.request({ trigger: 'webhook', owner: owner('hot') });
    failing.push('company:hot');
    h.clock.offset += 11_000; // past its hot interval: one poll is due
    await h.scheduler.request({ trigger: 'webhook', owner: owner('other') });
    await eventuallyTrue(() => h.runs.some((r) => r.key === 'company:hot' && r.endedAt));
    // Another entity's syncs pump the poller again and again, at the same instant of its clock.
    for (let i = 0; i < 5; i++)
      await h.scheduler.request({ trigger: 'webhook', owner: owner('other') });
    expect(h.runs.filter((r) => r.key === 'company:hot' && r.lane === 'poll')).toHaveLength(1);
    await h.scheduler.stop();
  });

  it('keeps ticks during a round as one round to follow, never more', async () => {
    const h = harness(10, { syncMs: 10 });
    const ticks = [1, 2, 3, 4].map(() => h.scheduler.request({ trigger: 'cron' }));
    await Promise.all(ticks);
    expect(h.rounds).toEqual([
      { full: false, entities: 10 },
      { full: false, entities: 10 },
    ]);
  });

  it('polls an entity that changed again before the round reaches the rest', async () => {
    const h = harness(30, { syncMs: 10 });
    await h.scheduler.request({ trigger: 'webhook', owner: owner('e29') });
    h.clock.offset += 11_000; // past its hot interval
    const round = h.scheduler.request({ trigger: 'cron' });
    await round;
    // e29 changed lately: the hot poll lists it early in the round, besides its own turn last.
    const polls = h.runs.filter((r) => r.key === 'company:e29' && r.lane === 'poll');
    expect(polls.length).toBeGreaterThanOrEqual(1);
    const firstPoll = h.runs.indexOf(polls[0]!);
    expect(firstPoll).toBeLessThan(5);
  });

  it('counts what a round found as activity, but not what the first sync pulled', async () => {
    const later = harness(4, { actions: 3 });
    await later.scheduler.request({ trigger: 'cron' });
    expect(later.scheduler.snapshot().hot).toBe(4);
    // The first sync pulls every entity: making them all hot would spend half the polls on
    // listing again what was just pulled.
    const first = harness(4, { actions: 3, firstSync: true });
    await first.scheduler.request({ trigger: 'cron', fullReconcile: true });
    expect(first.scheduler.snapshot().hot).toBe(0);
  });

  it('runs a root without its marker as one cycle over every entity', async () => {
    const h = harness(5, { whole: true });
    await h.scheduler.request({ trigger: 'cron', fullReconcile: true });
    expect(h.runs.map((r) => [r.key, r.options.owners])).toEqual([['all', undefined]]);
  });

  it('stops without starting what waits, and records the round it cut short', async () => {
    const h = harness(50, { syncMs: 30 });
    const round = h.scheduler.request({ trigger: 'cron' });
    await sleep(50);
    await h.scheduler.stop();
    await round;
    const started = h.runs.length;
    expect(started).toBeLessThan(10);
    expect(h.rounds).toEqual([{ full: false, entities: started }]);
    await h.scheduler.request({ trigger: 'webhook', owner: owner('late') });
    expect(h.runs.length).toBe(started);
  });

  it('spaces polls to schedule.maxPollShare of the rate when it caps them', async () => {
    // On a virtual clock: a busy machine must not stretch or squeeze the gaps under test.
    vi.useFakeTimers();
    try {
      const h = harness(8, { syncMs: 1, pollsPerSecond: 20 });
      const round = h.scheduler.request({ trigger: 'cron' });
      await vi.advanceTimersByTimeAsync(2_000);
      await round;
      const starts = h.runs.map((r) => r.calledAt);
      expect(starts).toHaveLength(8);
      const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
      expect(gaps.every((gap) => gap >= 50)).toBe(true); // 20 a second: one every 50 ms
    } finally {
      vi.useRealTimers();
    }
  });

  it('lists a company the firm-wide sweep points at next, whole when asked, not at its turn in the round', async () => {
    const h = harness(40, { syncMs: 10 });
    const round = h.scheduler.request({ trigger: 'cron' });
    await sleep(30);
    h.scheduler.hint(owner('e38'), false);
    h.scheduler.hint(owner('e39'), true);
    expect(h.scheduler.snapshot().hinted).toBe(2);
    await round;
    const first = (key: string) => h.runs.findIndex((r) => r.key === `company:${key}`);
    expect(first('e38')).toBeLessThan(12);
    expect(first('e39')).toBeLessThan(12);
    expect(h.runs[first('e39')]!.options.fullReconcile).toBe(true);
    expect(h.runs[first('e38')]!.options.fullReconcile).toBe(false);
    expect(h.scheduler.snapshot().hinted).toBe(0);
  });

  it('lists a hinted company again when the hint came during its sync, once that sync ends', async () => {
    const h = harness(1, { syncMs: 40 });
    const sync = h.scheduler.request({ trigger: 'webhook', owner: owner('e0') });
    await sleep(10);
    h.scheduler.hint(owner('e0'), false); // the sync under way may have listed before the change
    await sync;
    await sleep(100);
    const polls = h.runs.filter((r) => r.key === 'company:e0');
    expect(polls.map((r) => r.lane)).toEqual(['webhook', 'poll']);
    expect(polls[1]!.startedAt).toBeGreaterThanOrEqual(polls[0]!.endedAt!);
    expect(h.scheduler.snapshot().hinted).toBe(0);
    expect(h.overlapped()).toBe(false);
  });

  it('makes a company hot when the round lists it, not when a hinted poll brought its change', async () => {
    // The hinted poll finds the change; the round then finds nothing more in it, as it would
    // have found that change itself without the sweep.
    let inRound = false;
    const h = harness(6, {
      syncMs: 5,
      actions: (run) => (run.key === 'company:e5' && !inRound ? 1 : 0),
    });
    h.scheduler.hint(owner('e5'), false);
    await eventuallyTrue(() =>
      h.runs.some((r) => r.key === 'company:e5' && r.endedAt !== undefined),
    );
    await sleep(10);
    expect(h.scheduler.snapshot().hot).toBe(0);
    inRound = true;
    await h.scheduler.request({ trigger: 'cron' });
    expect(h.runs.filter((r) => r.key === 'company:e5')).toHaveLength(2);
    expect(h.scheduler.snapshot().hot).toBe(1);
  });
});

describe('WorkScheduler: the work asked for is a row until a sync of it succeeds', () => {
  const keys = (rows: readonly { owner: OwnerRef }[]) => rows.map((r) => ownerKey(r.owner));

  it('keeps a request made during its sync for the next one, and clears it when that succeeds', async () => {
    const h = harness(0, { syncMs: 30 });
    const first = h.scheduler.request({ trigger: 'watcher', owner: owner('a') });
    expect(keys(h.state.work.all()), 'written before the sync runs').toEqual(['company:a']);
    await eventuallyTrue(() => h.runs.length === 1);
    // A change while the sync reads the folder: that sync may have missed it.
    const second = h.scheduler.request({ trigger: 'watcher', owner: owner('a') });
    expect(await first).toBe('synced');
    expect(keys(h.state.work.all()), 'the change during the sync is still work').toEqual([
      'company:a',
    ]);
    expect(await second).toBe('synced');
    expect(h.state.work.all()).toEqual([]);
  });

  it('keeps a failed sync as a row with its attempt and error, and tries it again when its backoff ends', async () => {
    const testClock = new TestClock({ standsStill: true });
    const failing = ['company:bad'];
    const h = harness(0, { syncMs: 1, failing, testClock });
    expect(await h.scheduler.request({ trigger: 'webhook', owner: owner('bad') })).toBe('failed');
    const row = h.state.work.get(owner('bad'))!;
    expect(row).toMatchObject({ attempts: 1, lastError: 'the service answered 503' });
    expect(row.dueAt).toBe(testClock.now() + 5_000);
    testClock.advance(4_999);
    await sleep(20);
    expect(h.runs, 'not before its backoff ends').toHaveLength(1);
    failing.length = 0; // the service is back
    testClock.advance(1);
    await eventuallyTrue(() => h.runs.length === 2 && h.runs[1]!.endedAt !== undefined);
    expect(h.runs[1]!.lane, 'in the lane it was asked in').toBe('webhook');
    await eventuallyTrue(() => h.state.work.all().length === 0);
    await h.scheduler.stop();
  });

  it('drops the retry of a failed sync once another sync of the entity has done its work', async () => {
    const testClock = new TestClock({ standsStill: true });
    const failing = ['company:e0'];
    const h = harness(1, { syncMs: 1, failing, testClock });
    expect(await h.scheduler.request({ trigger: 'watcher', owner: owner('e0') })).toBe('failed');
    expect(testClock.nextAt()).toBe(testClock.now() + 5_000);
    failing.length = 0;
    // The round lists it before the retry is due, and does what the row asked.
    await h.scheduler.request({ trigger: 'cron' });
    expect(h.state.work.all()).toEqual([]);
    testClock.advance(5_000);
    await sleep(20);
    expect(h.runs.map((r) => r.lane)).toEqual(['watcher', 'poll']);
    await h.scheduler.stop();
  });

  it('leaves the work of syncs a stop cut or never started, and asks for it first at the next start', async () => {
    const state = open();
    let stopping = false;
    // A sync under way at the stop reports it was interrupted, as runCycle does.
    const result = () => (stopping ? 'interrupted' : undefined);
    const before = harness(0, { syncMs: 200, state, result });
    void before.scheduler.request({ trigger: 'watcher', owner: owner('running') });
    await eventuallyTrue(() => before.runs.length === 1);
    void before.scheduler.request({
      trigger: 'manual',
      owner: owner('waiting'),
      fullReconcile: true,
    });
    stopping = true;
    await before.scheduler.stop();
    expect(keys(state.work.all()).sort()).toEqual(['company:running', 'company:waiting']);

    const after = harness(3, { syncMs: 5, state });
    after.scheduler.resume();
    await after.scheduler.request({ trigger: 'cron' });
    await eventuallyTrue(() => after.state.work.all().length === 0);
    const first = after.runs.slice(0, 2);
    expect(first.map((r) => r.key).sort(), 'before any round entity').toEqual([
      'company:running',
      'company:waiting',
    ]);
    const manual = first.find((r) => r.key === 'company:waiting')!;
    expect(manual.options).toMatchObject({ trigger: 'manual', fullReconcile: true });
    expect(manual.lane).toBe('webhook');
    await after.scheduler.stop();
  });

  it('starts what a sync left for later (a hold) when it falls due, not before, and keeps it across a restart', async () => {
    const testClock = new TestClock({ standsStill: true });
    const state = open();
    const holdEnd = testClock.now() + 60_000;
    let held = true;
    const laterWork: SchedulerHost['laterWork'] = (owners) =>
      held && owners !== 'all' && owners.some((o) => o.id === 'a')
        ? [
            {
              owner: owner('a'),
              dueAt: holdEnd,
              request: { trigger: 'watcher', owner: owner('a') },
            },
          ]
        : [];
    const h = harness(0, { syncMs: 1, state, testClock, laterWork });
    await h.scheduler.request({ trigger: 'watcher', owner: owner('a') });
    expect(h.state.work.get(owner('a'))).toMatchObject({ dueAt: holdEnd, reasons: ['watcher'] });
    testClock.advanceTo(holdEnd - 1);
    await sleep(20);
    expect(h.runs).toHaveLength(1);
    await h.scheduler.stop();

    // Restarted before the hold ends: the row is the work, due when it was.
    const again = harness(0, { syncMs: 1, state, testClock });
    again.scheduler.resume();
    await sleep(20);
    expect(again.runs).toHaveLength(0);
    held = false;
    testClock.advance(1);
    await eventuallyTrue(() => again.runs.length === 1 && again.runs[0]!.endedAt !== undefined);
    await eventuallyTrue(() => again.state.work.all().length === 0);
    await again.scheduler.stop();
  });
});
