/** When the next request may go out (src/remote/request-pacing.ts). */
import { describe, expect, it } from 'vitest';
import {
  HEADROOM_MS,
  nextPollDue,
  nextTurnAt,
  pollReadyAt,
  rateWindow,
  windowFreeAt,
} from '../../src/remote/request-pacing.js';

const W = { interval: 1040, cap: 10 }; // 10/s
const NOW = 100_000;
/** `n` requests sent 10 ms apart, the last at `last`. */
const sentUntil = (last: number, n: number) =>
  Array.from({ length: n }, (_, i) => last - 10 * (n - 1 - i));

describe('windowFreeAt', () => {
  it('is now while the window holds fewer than its cap', () => {
    expect(windowFreeAt(sentUntil(NOW, 9), NOW, W)).toBe(NOW);
    expect(windowFreeAt([], NOW, W)).toBe(NOW);
  });

  it('with the window full, is when its oldest request leaves it', () => {
    const sent = sentUntil(NOW, 10); // NOW - 90 … NOW
    expect(windowFreeAt(sent, NOW, W)).toBe(NOW - 90 + 1040);
    // Requests older than the window do not count, in any order.
    expect(windowFreeAt([NOW - 2000, ...sent.reverse()], NOW, W)).toBe(NOW - 90 + 1040);
  });

  it('keeping slots free, is when enough have left for one more besides them', () => {
    const sent = sentUntil(NOW, 8); // NOW - 70 … NOW
    expect(windowFreeAt(sent, NOW, W, 2)).toBe(NOW - 70 + 1040);
    expect(windowFreeAt(sent, NOW, W, 3)).toBe(NOW - 60 + 1040);
  });

  it('has no window without a rate', () => {
    expect(windowFreeAt(sentUntil(NOW, 100), NOW, { interval: 0, cap: Infinity })).toBe(NOW);
  });

  it('never lets the cap plus one go out in any window, however the requests come', () => {
    // Requests asking at random times, each sent at the earliest the window allows.
    let seed = 3;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const sent: number[] = [];
    let asked = 0;
    for (let i = 0; i < 500; i++) {
      asked += Math.floor(random() * 200);
      const at = windowFreeAt(sent, Math.max(asked, sent.at(-1) ?? 0), W);
      sent.push(at);
    }
    for (const [i, t] of sent.entries()) {
      expect(
        sent.filter((s) => s > t - W.interval && s <= t).length,
        `at ${i}`,
      ).toBeLessThanOrEqual(W.cap);
    }
  });
});

describe('nextTurnAt', () => {
  const BACKLOG = 2000;

  it('lets up to half the window go at once after a quiet spell', () => {
    expect(nextTurnAt(sentUntil(NOW, 4), NOW, W, BACKLOG)).toBe(NOW);
  });

  it('from half full, spaces a backlog a slot of the window apart', () => {
    expect(nextTurnAt(sentUntil(NOW, 5), NOW, W, BACKLOG)).toBe(NOW + 104);
    expect(nextTurnAt(sentUntil(NOW - 200, 5), NOW, W, BACKLOG)).toBe(NOW);
  });

  it('lets requests that fit in the window go at once, however full it is', () => {
    // A webhook's sync beside a round that keeps eight polls in the window: not spaced.
    expect(nextTurnAt(sentUntil(NOW, 8), NOW, W, 1)).toBe(NOW);
    expect(nextTurnAt(sentUntil(NOW, 8), NOW, W, 2)).toBe(NOW);
    expect(nextTurnAt(sentUntil(NOW, 8), NOW, W, 3)).toBe(NOW + 104);
  });

  it('never before the window has room', () => {
    const full = Array.from({ length: 10 }, (_, i) => NOW - 900 + 100 * i);
    expect(nextTurnAt(full, NOW, W, 1)).toBe(NOW - 900 + 1040);
    expect(nextTurnAt(full, NOW, W, BACKLOG)).toBe(NOW - 900 + 1040);
  });

  it('keeps a lane that always has a request waiting evenly spaced: no window sees a burst', () => {
    const sent: number[] = [];
    for (let now = NOW; sent.length < 100; now++) {
      if (nextTurnAt(sent, now, W, BACKLOG) <= now) sent.push(now);
    }
    const gaps = sent.slice(6).map((t, i) => t - sent[i + 5]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(104);
  });
});

describe('pollReadyAt', () => {
  const pace = { now: NOW, sent: [] as number[], window: W, pollDueAt: 0, lastUrgentAt: -Infinity };

  it('is when the spacing makes the next poll due', () => {
    expect(pollReadyAt({ ...pace, pollDueAt: NOW + 50 })).toBe(NOW + 50);
    expect(pollReadyAt({ ...pace, pollDueAt: NOW - 50 })).toBe(NOW);
  });

  it('alone, polling may fill the window', () => {
    expect(pollReadyAt({ ...pace, sent: sentUntil(NOW, 9) })).toBe(NOW);
  });

  it('while the other lanes were active lately, it leaves two slots of the window free', () => {
    const lately = { ...pace, sent: sentUntil(NOW, 8), lastUrgentAt: NOW - HEADROOM_MS + 1 };
    expect(pollReadyAt(lately)).toBe(NOW - 70 + 1040);
    expect(pollReadyAt({ ...lately, lastUrgentAt: NOW - HEADROOM_MS })).toBe(NOW);
  });

  it('at a low rate it leaves a quarter of the window free, so polling still moves', () => {
    const low = { interval: 1040, cap: 2 };
    expect(pollReadyAt({ ...pace, window: low, sent: [NOW - 10], lastUrgentAt: NOW })).toBe(NOW);
  });
});

describe('nextPollDue', () => {
  it('spaces polls a slot of the window apart, counted from when the last was due', () => {
    expect(nextPollDue(NOW, NOW + 3, W)).toBe(NOW + 104);
  });

  it('after a pause restarts from now, with one slot in hand', () => {
    expect(nextPollDue(NOW - 10_000, NOW, W)).toBe(NOW);
  });

  it('does not space without a rate', () => {
    const none = rateWindow(Number.POSITIVE_INFINITY);
    expect(nextPollDue(NOW + 500, NOW, { interval: none.interval, cap: none.intervalCap })).toBe(
      NOW,
    );
  });
});
