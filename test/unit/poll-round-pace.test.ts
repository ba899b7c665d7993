/**
 * Work-pick rule 12, the round's pace, on a virtual clock: a firm of 5,000 entities polled at
 * the default budget (10 requests a second, less the unlodged sweep's 5 %), a round asked for
 * every 5 minutes as `schedule.cron` does (one kept to follow while one runs), the poller
 * keeping its count of the last minute's polls as the work scheduler does. Quiet, then with 200
 * entities kept hot and a hint every 5 s, without and with their webhooks' syncs: the round must
 * keep its pace, and no entity may go unlisted longer than the coverage period the docs promise.
 */
import { describe, expect, it } from 'vitest';
import { coveragePeriodMs, hotIntervalMs, SHARE_WINDOW_MS } from '../../src/domain/poll-policy.js';
import { type HintedEntity, type HotEntity, pickWork } from '../../src/domain/work-pick.js';

const ENTITIES = 5000;
const POLLS_PER_SECOND = 10 * (1 - 0.05);
const CRON_MS = 5 * 60_000;
/** docs/syncing.md: 5,000 entities at 10 requests a second are each listed within 11 minutes. */
const DOCS_COVERAGE_MS = 11 * 60_000;
const NO_ONE_BUSY = { has: () => false };
/** A free poll slot each time: the poller keeps its own pace here, one poll per step. */
const FREE_SLOTS = {
  queued: [],
  busy: NO_ONE_BUSY,
  urgent: { slots: 8, inUse: {} },
  poll: { slots: 1, inUse: 0 },
} as const;

interface Run {
  /** How long each round took, from its start to its last listing. */
  readonly rounds: number[];
  /** The longest any entity went unlisted. */
  readonly stalestMs: number;
  readonly hotPolls: number;
}

/** What a webhook's sync asks of the service: its listing, the details, a link and the file. */
const WEBHOOK_REQUESTS = 4;

/**
 * `active` entities kept hot, one of them sent a webhook every `webhookEveryMs` (0: none; its
 * sync's requests come out of the same budget, and it lists the entity); a hint every
 * `hintEveryMs` (0: none); for `forMs` of polling.
 */
function poll(active: number, hintEveryMs: number, forMs: number, webhookEveryMs = 0): Run {
  const keys = Array.from({ length: ENTITIES }, (_, i) => `e${i}`);
  const listedAt = new Map(keys.map((k) => [k, 0]));
  const activeKeys = keys.filter((_, i) => i % Math.floor(ENTITIES / Math.max(1, active)) === 0);
  const hot = new Set(activeKeys.slice(0, active));
  const hinted: HintedEntity[] = [];
  const recent: { at: number; kind: 'hot' | 'round' }[] = [];
  const rounds: number[] = [];
  let round: { keys: string[]; startedAt: number } | null = null;
  let roundAsked = true;
  let nextCron = 0;
  let nextHint = hintEveryMs;
  let nextWebhook = webhookEveryMs;
  let webhooks = 0;
  let hints = 0;
  let hotPolls = 0;
  let stalestMs = 0;
  const stalestFirst = () =>
    [...keys].sort((a, b) => listedAt.get(a)! - listedAt.get(b)! || (a < b ? -1 : 1));
  for (let now = 0; now < forMs; now += 1000 / POLLS_PER_SECOND) {
    if (now >= nextCron) {
      roundAsked = true;
      nextCron += CRON_MS;
    }
    if (round === null && roundAsked) {
      round = { keys: stalestFirst(), startedAt: now };
      roundAsked = false;
    }
    if (hintEveryMs > 0 && now >= nextHint) {
      // A company the sweep saw a change in: one of the quiet ones, as most hints are.
      const key = keys[(hints++ * 37 + 11) % ENTITIES]!;
      if (!hinted.some((h) => h.key === key)) hinted.push({ key, hintedAt: now });
      nextHint += hintEveryMs;
    }
    if (webhookEveryMs > 0 && now >= nextWebhook) {
      // The webhook lane goes first: its sync's requests take the next turns of the budget.
      listedAt.set(activeKeys[webhooks++ % activeKeys.length]!, now);
      now += ((WEBHOOK_REQUESTS - 1) * 1000) / POLLS_PER_SECOND;
      nextWebhook += webhookEveryMs;
      continue;
    }
    while (recent.length > 0 && now - recent[0]!.at >= SHARE_WINDOW_MS) recent.shift();
    const hotView: HotEntity[] = [...hot].map((key) => ({ key, listedAt: listedAt.get(key)! }));
    const pick = pickWork({
      ...FREE_SLOTS,
      polls: {
        now,
        paced: false,
        nextPollAt: 0,
        round: round?.keys ?? [],
        hot: hotView,
        hinted,
        hotIntervalMs: hotIntervalMs(hot.size, POLLS_PER_SECOND),
        recent: {
          hot: recent.filter((r) => r.kind === 'hot').length,
          round: recent.filter((r) => r.kind === 'round').length,
        },
      },
    });
    if (pick.kind !== 'start-poll') continue;
    recent.push({ at: now, kind: pick.poll === 'round' ? 'round' : 'hot' });
    if (pick.poll !== 'round') hotPolls++;
    if (pick.poll === 'hinted')
      hinted.splice(
        hinted.findIndex((h) => h.key === pick.key),
        1,
      );
    if (pick.poll === 'round' && round) {
      round.keys.splice(round.keys.indexOf(pick.key), 1);
      if (round.keys.length === 0) {
        rounds.push(now - round.startedAt);
        round = null;
      }
    }
    stalestMs = Math.max(stalestMs, now - listedAt.get(pick.key)!);
    listedAt.set(pick.key, now);
  }
  for (const at of listedAt.values()) stalestMs = Math.max(stalestMs, forMs - at);
  return { rounds, stalestMs, hotPolls };
}

describe('work-pick rule 12: the round keeps its pace', () => {
  const minutes = 60;
  const quiet = poll(0, 0, minutes * 60_000);
  const busy = poll(200, 5_000, minutes * 60_000);
  // The firm of the measurement at full size (bench 17): a webhook every 10 s among the 200
  // (about 200 over 36 minutes), their syncs' requests out of the same budget as the round's.
  const withWebhooks = poll(200, 5_000, minutes * 60_000, 10_000);
  // The first round starts with every entity listed at once; the later ones are the pace.
  const slowest = (run: Run) => Math.max(...run.rounds.slice(1));

  it('takes at most 1.3 times a quiet round with 200 active entities and the hints', () => {
    expect(quiet.hotPolls).toBe(0);
    for (const run of [busy, withWebhooks]) {
      expect(run.hotPolls).toBeGreaterThan(1000); // the hot and hinted polls did run
      expect(run.rounds.length).toBeGreaterThanOrEqual(3);
      expect(slowest(run) / slowest(quiet)).toBeLessThanOrEqual(1.3);
    }
  });

  it('lists every entity within the coverage period the docs promise', () => {
    const coverage = coveragePeriodMs(ENTITIES, POLLS_PER_SECOND, CRON_MS);
    expect(coverage).toBeLessThanOrEqual(DOCS_COVERAGE_MS);
    expect(quiet.stalestMs).toBeLessThanOrEqual(coverage);
    expect(busy.stalestMs).toBeLessThanOrEqual(coverage);
    // The webhooks' syncs take what the status page's period does not count: the docs' holds.
    expect(withWebhooks.stalestMs).toBeLessThanOrEqual(DOCS_COVERAGE_MS);
  });
});
