/**
 * Bench 8: freshness without webhooks (issue 16). The daemon's real work scheduler polls a
 * firm whose changes follow a realistic activity model: 4 % of the entities get 80 % of the
 * changes, the rest rarely change. Each poll is an entity sync that takes a request's time and
 * sees every change made before it started. Measured: the time from a change to the poll that
 * brings it to the folder, median and p95, for the adaptive poller (rounds and hot polls) and,
 * as the floor, plain round robin (rounds only) on the same budget in the same run; and the
 * longest any entity went unlisted, against the coverage period.
 *
 * Time is scaled down 50×, so it runs in about two minutes: 400 entities polled at 40 a second
 * stand for 5,000 at 10 a second... with one exception, since 400/40 is a 10 s round where
 * 5,000/10 is 500 s: the scale is on the round, 50×. The policy's times are scaled with it (the
 * 10 s hot interval becomes 0.2 s, the 30 min hot window 36 s). The changes (2 a second, scaled)
 * stand for ~150 an hour at the real firm.
 */
import { type SchedulerHost, WorkScheduler } from '../src/daemon/work-scheduler.js';
import { coveragePeriodMs, HOT_WINDOW_MS, MIN_HOT_INTERVAL_MS } from '../src/domain/poll-policy.js';
import type { OwnerRef } from '../src/domain/types.js';
import { EntityLocks } from '../src/engine/entity-locks.js';
import type { CycleReport } from '../src/engine/run-cycle.js';
import { StateStore } from '../src/state/state-store.js';
import { random } from './lib/random.js';
import { type BenchResult, verdict } from './lib/result.js';
import { median, percentile, sleep } from './lib/stats.js';
import { scratch } from './lib/temp.js';

const SCALE = 50;
const ENTITIES = 400;
const POLLS_PER_SECOND = 40;
const BUSY_SHARE = 0.04;
const BUSY_CHANGES = 0.8;
const CHANGES_PER_SECOND = 2;
const RUN_MS = 50_000;
const REQUEST_MS = 15;

/** When each entity changes, as offsets from the start: busy entities get most of the changes. */
function activity(): Map<string, number[]> {
  const next = random(16);
  const busy = Math.round(ENTITIES * BUSY_SHARE);
  const changes = new Map<string, number[]>();
  const total = (CHANGES_PER_SECOND * RUN_MS) / 1000;
  for (let i = 0; i < total; i++) {
    const onBusy = next() < BUSY_CHANGES;
    const index = onBusy
      ? Math.floor(next() * busy)
      : busy + Math.floor(next() * (ENTITIES - busy));
    const at = next() * (RUN_MS - 5_000); // the last 5 s of changes would not be seen by both
    const key = `company:e${index}`;
    changes.set(key, [...(changes.get(key) ?? []), at]);
  }
  for (const list of changes.values()) list.sort((a, b) => a - b);
  return changes;
}

interface Run {
  readonly latencies: number[];
  readonly polls: number;
  readonly longestUnlistedMs: number;
}

async function poll(adaptive: boolean, changes: Map<string, number[]>): Promise<Run> {
  const pending = new Map([...changes].map(([key, list]) => [key, [...list]]));
  const latencies: number[] = [];
  const lastListed = new Map<string, number>();
  let longestUnlisted = 0;
  let polls = 0;
  const start = Date.now();
  const elapsed = () => Date.now() - start;
  const owners: OwnerRef[] = Array.from({ length: ENTITIES }, (_, i) => ({
    kind: 'company',
    id: `e${i}`,
  }));
  const state = StateStore.open(`${scratch('freshness')}/docsync.db`);
  const host: SchedulerHost = {
    run: async (options) => {
      const key = `company:${options.owners![0]!.id}`;
      const listedAt = elapsed();
      polls++;
      await sleep(REQUEST_MS);
      const queue = pending.get(key) ?? [];
      let seen = 0;
      while (queue.length > 0 && queue[0]! <= listedAt) {
        latencies.push(elapsed() - queue.shift()!);
        seen++;
      }
      longestUnlisted = Math.max(longestUnlisted, listedAt - (lastListed.get(key) ?? 0));
      lastListed.set(key, listedAt);
      // A poll that found changes made the entity hot; plain round robin learns nothing.
      return {
        actions: adaptive ? seen : 0,
        documentsFailed: 0,
        tripped: [],
      } as unknown as CycleReport;
    },
    startRound: async () => ({ owners }),
    finishRound: () => undefined,
    pollsPerSecond: POLLS_PER_SECOND,
    pacePolls: true,
    now: Date.now,
    pollTimes: {
      hotWindowMs: HOT_WINDOW_MS / SCALE,
      minHotIntervalMs: MIN_HOT_INTERVAL_MS / SCALE,
    },
    after: (ms, fire) => {
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    },
    locks: new EntityLocks(),
    // Polls are policy, not rows: the table stays empty, as the daemon's does between changes.
    work: state.work,
    laterWork: () => [],
  };
  const scheduler = new WorkScheduler(host, (error) => {
    throw error;
  });
  // Rounds back to back, as at a firm whose round outlasts the cron interval.
  const rounds = (async () => {
    while (elapsed() < RUN_MS) await scheduler.request({ trigger: 'cron' });
  })();
  await sleep(RUN_MS);
  await scheduler.stop();
  await rounds;
  state.close();
  for (const listed of lastListed.values()) {
    longestUnlisted = Math.max(longestUnlisted, RUN_MS - listed);
  }
  return { latencies, polls, longestUnlistedMs: longestUnlisted };
}

export async function freshness(): Promise<BenchResult> {
  const changes = activity();
  const robin = await poll(false, changes);
  const adaptive = await poll(true, changes);
  const coverage = coveragePeriodMs(ENTITIES, POLLS_PER_SECOND, 0);
  const real = (ms: number) => `${((ms * SCALE) / 1000).toFixed(0)} s`;
  const both = (ms: number) => `${real(ms)} (${(ms / 1000).toFixed(2)} s scaled)`;
  const bench = '8 freshness';
  const medianA = median(adaptive.latencies);
  const medianR = median(robin.latencies);
  const p95A = percentile(adaptive.latencies, 95);
  const p95R = percentile(robin.latencies, 95);
  return {
    rows: [
      {
        bench,
        measure: `remote change → folder, median, no webhooks (${adaptive.latencies.length} changes; floor: round robin)`,
        figure: both(medianA),
        floor: real(medianR),
        target: '≤ ⅓ of round robin',
        verdict: verdict(medianA <= medianR / 3),
      },
      {
        bench,
        measure: 'remote change → folder, p95',
        figure: real(p95A),
        floor: real(p95R),
        target: '-',
        verdict: 'info',
      },
      {
        bench,
        measure: 'polls made in the same time (the budget)',
        figure: String(adaptive.polls),
        floor: String(robin.polls),
        target: 'same requests (±5 %)',
        verdict: verdict(Math.abs(adaptive.polls - robin.polls) <= robin.polls * 0.05),
      },
      {
        bench,
        measure: 'longest an entity went unlisted',
        figure: real(adaptive.longestUnlistedMs),
        floor: real(robin.longestUnlistedMs),
        target: `≤ coverage period ${real(coverage)}`,
        verdict: verdict(adaptive.longestUnlistedMs <= coverage),
      },
    ],
    notes: [
      `The daemon's work scheduler with an in-memory host, in real time scaled down ${SCALE}×: ${ENTITIES} entities polled at ${POLLS_PER_SECOND} a second stand for 5,000 at 10 a second (a round of ${ENTITIES / POLLS_PER_SECOND} s for ~${((ENTITIES / POLLS_PER_SECOND) * SCALE) / 60} min); the policy's hot interval and hot window are scaled with it. Figures are shown at the real firm's scale.`,
      `Activity: ${BUSY_SHARE * 100} % of the entities get ${BUSY_CHANGES * 100} % of the changes; ${(CHANGES_PER_SECOND * RUN_MS) / 1000} changes over ${RUN_MS / 1000} s, the same seeded changes for both pollers. A poll takes ${REQUEST_MS} ms and sees every change made before it started.`,
    ],
  };
}
