/**
 * The daemon's sweep of the firm's unlodged list (src/daemon/unlodged-sweep.ts) with an
 * in-memory list, on a virtual clock: its pace, its paging, what it hints, what it does when the
 * list fails, and when it starts and stops. The clock moves only when a test moves it, so each
 * request's moment is exact, however busy the machine.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  sweepIntervalMs,
  UnlodgedSweep,
  type UnlodgedSweepDeps,
} from '../../src/daemon/unlodged-sweep.js';
import type { Clock } from '../../src/domain/clock.js';
import type { OwnerRef, UnlodgedDocument } from '../../src/domain/types.js';
import type { AgreedDocument, UnlodgedPage } from '../../src/domain/unlodged-hints.js';
import { createLogger } from '../../src/log/create-logger.js';
import { ApiError } from '../../src/remote/api-error.js';

const INTERVAL = 1000;
const HOUR = 60 * 60_000;

/** Fake timers drive it (its timers are the global ones): `advance` runs every wait on the way. */
const virtualClock: Clock = {
  now: () => Date.now(),
  after: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
/** A page that answers after `ms` of virtual time (the request queue held it, the service was slow). */
const answeredAfter = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

const form = (id: string, company: string, statusId: string): UnlodgedDocument => ({
  id,
  owner: { kind: 'company', id: company },
  traceNumber: null,
  asicDocNumber: '2E1',
  name: 'Form 484',
  documentDate: '2026-01-01',
  status: {
    id: statusId,
    typeId: '2',
    type: 'DOCUMENT PREPARED',
    effectiveDate: '2026-01-01',
    createdBy: null,
  },
  lodgementDetails: null,
  company: { id: company },
});

const sweeps: UnlodgedSweep[] = [];
let t0 = 0;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  t0 = Date.now();
});
afterEach(() => {
  for (const sweep of sweeps.splice(0)) sweep.close();
  vi.useRealTimers();
});

/** A list of `list` paged `limit` at a time, the agreed state `agreed`, hints collected. */
function harness(over: Partial<UnlodgedSweepDeps> & { list: UnlodgedDocument[]; limit?: number }) {
  const limit = over.limit ?? 2;
  const calls: { offset: number; at: number }[] = [];
  const hints: [string, boolean][] = [];
  const lines: { level: number; msg: string }[] = [];
  const agreed = new Map<string, AgreedDocument>();
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const deps: UnlodgedSweepDeps = {
    page: async (offset): Promise<UnlodgedPage> => ({
      documents: over.list.slice(offset, offset + limit),
      malformed: 0,
      total: over.list.length,
      limit,
    }),
    agreed: (ids) => new Map(ids.flatMap((id) => (agreed.has(id) ? [[id, agreed.get(id)!]] : []))),
    company: (id): OwnerRef => ({ kind: 'company', id: `known-${id}` }),
    ready: () => true,
    hint: (owner, whole) => hints.push([owner.id, whole]),
    intervalMs: INTERVAL,
    // A sweep a page after the last: the floor between sweeps has cases of its own.
    sweepEveryMs: 0,
    clock: virtualClock,
    logger: createLogger({ level: 'info', destination, pretty: false }),
    onError: (error) => {
      throw error;
    },
    ...over,
  };
  const page = deps.page;
  const sweep = new UnlodgedSweep({
    ...deps,
    page: (offset) => {
      calls.push({ offset, at: Date.now() - t0 });
      return page(offset);
    },
  });
  sweeps.push(sweep);
  return { sweep, calls, hints, lines, agreed, moments: () => calls.map((c) => c.at) };
}

describe('sweepIntervalMs', () => {
  it.each([
    // share, requests a second, ms between two of the sweep's requests
    [0.05, 8, 2500], // the default share at 8 a second: one request every 2.5 s
    [0.05, 10, 2000],
    [0.25, 20, 200],
    [0.5, 1, 2000],
  ])('a share of %s of %s requests a second: one request every %s ms', (share, rate, ms) => {
    expect(sweepIntervalMs(share, rate)).toBeCloseTo(ms, 9);
    // Its requests a second are its share of the rate, and no more.
    expect(1000 / sweepIntervalMs(share, rate)!).toBeCloseTo(share * rate, 9);
  });

  it('is null for a share of 0: no sweep, no request', () => {
    expect(sweepIntervalMs(0, 10)).toBeNull();
  });
});

describe('UnlodgedSweep', () => {
  it('pages the list over and over, one request per interval from the first, and hints what the state lacks', async () => {
    const list = [form('1', 'a', 's1'), form('2', 'b', 's1'), form('3', 'c', 's1')];
    const h = harness({ list });
    h.agreed.set('1', { owner: { kind: 'company', id: 'a' }, statusId: 's1' });
    h.agreed.set('2', { owner: { kind: 'company', id: 'b' }, statusId: 's0' });
    h.sweep.start();
    await advance(5 * INTERVAL);
    expect(h.calls.map((c) => c.offset)).toEqual([0, 2, 0, 2, 0, 2]);
    expect(h.moments()).toEqual([0, 1, 2, 3, 4, 5].map((n) => n * INTERVAL));
    // A new status of a known document (its owner from the state), a new document (its company
    // from the catalogue); each once, however many sweeps see it.
    expect(h.hints).toEqual([
      ['b', false],
      ['known-c', false],
    ]);
    expect(h.sweep.stats).toEqual({ requests: 6, sweeps: 3, hints: 2 });
  });

  it('keeps to one request per interval when a page is slow: the next follows it, none catches up', async () => {
    const list = [form('1', 'a', 's1'), form('2', 'b', 's1'), form('3', 'c', 's1')];
    let asked = 0;
    const h = harness({
      list,
      page: (offset) => {
        const page = {
          documents: list.slice(offset, offset + 2),
          malformed: 0,
          total: 3,
          limit: 2,
        };
        // The second request waits behind the round in the request queue for 2.5 intervals.
        return ++asked === 2 ? answeredAfter(2.5 * INTERVAL, page) : Promise.resolve(page);
      },
    });
    h.sweep.start();
    await advance(6 * INTERVAL);
    expect(h.moments()).toEqual([0, 1, 3.5, 4.5, 5.5].map((n) => n * INTERVAL));
    // Over any span, at most one request per interval and the one under way when it began.
    const moments = h.moments();
    for (const from of moments) {
      for (const span of [INTERVAL, 2 * INTERVAL, 3.5 * INTERVAL]) {
        const within = moments.filter((at) => at >= from && at < from + span).length;
        expect(within).toBeLessThanOrEqual(Math.ceil(span / INTERVAL));
      }
    }
  });

  describe('a sweep at most every unlodgedSweepSeconds, whatever the size of the list', () => {
    const SWEEP_EVERY = 30 * INTERVAL;
    /** A list of `pages` pages (two documents a page), each in a company of its own. */
    const listOf = (pages: number) =>
      Array.from({ length: 2 * pages }, (_, i) => form(String(i), `c${i}`, 's1'));
    /** Which request of its sweep each one was: the page's number. */
    const pageNumbers = (h: ReturnType<typeof harness>) => h.calls.map((c) => c.offset / 2);

    it("a small firm's list of one page: read once in each 30 s, not at every interval", async () => {
      const h = harness({ list: listOf(1), sweepEveryMs: SWEEP_EVERY });
      h.sweep.start();
      await advance(SWEEP_EVERY - 1);
      expect(h.moments()).toEqual([0]);
      await advance(1);
      expect(h.moments()).toEqual([0, SWEEP_EVERY]);
      await advance(3 * SWEEP_EVERY);
      expect(h.moments()).toEqual([0, 1, 2, 3, 4].map((n) => n * SWEEP_EVERY));
      expect(h.sweep.stats.sweeps).toBe(5);
    });

    it('a list of 10 pages: its pages an interval apart, the next sweep 30 s after this one began', async () => {
      const h = harness({ list: listOf(10), sweepEveryMs: SWEEP_EVERY });
      h.sweep.start();
      await advance(2 * SWEEP_EVERY);
      const first = Array.from({ length: 10 }, (_, n) => n * INTERVAL);
      expect(h.moments()).toEqual([
        ...first,
        ...first.map((at) => SWEEP_EVERY + at),
        2 * SWEEP_EVERY,
      ]);
      expect(pageNumbers(h).slice(0, 11)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
    });

    it('a list whose sweep takes longer than 30 s at its share (a large firm): read as without the floor, a page per interval', async () => {
      const pages = 40;
      const floored = harness({ list: listOf(pages), sweepEveryMs: SWEEP_EVERY });
      const free = harness({ list: listOf(pages), sweepEveryMs: 0 });
      floored.sweep.start();
      free.sweep.start();
      await advance(3 * pages * INTERVAL);
      expect(floored.moments()).toEqual(
        Array.from({ length: 3 * pages + 1 }, (_, n) => n * INTERVAL),
      );
      expect(floored.calls).toEqual(free.calls);
      // Its share of the rate: one request per interval, as the share sets it.
      expect(floored.calls.length / (3 * pages)).toBeCloseTo(1, 1);
    });

    it('a sweep cut short by a failing page starts again no sooner than 30 s after the last began', async () => {
      let fail = false;
      const list = listOf(3);
      const h = harness({
        list,
        sweepEveryMs: SWEEP_EVERY,
        page: async (offset) => {
          if (fail && offset === 2) throw new Error('socket hang up');
          return { documents: list.slice(offset, offset + 2), malformed: 0, total: 6, limit: 2 };
        },
      });
      fail = true;
      h.sweep.start();
      await advance(SWEEP_EVERY);
      expect(h.moments()).toEqual([0, INTERVAL, SWEEP_EVERY]);
      expect(pageNumbers(h)).toEqual([0, 1, 0]);
    });
  });

  it('lists whole the company of a known document gone from the list between two whole sweeps', async () => {
    const list = [form('1', 'a', 's1'), form('2', 'b', 's1')];
    const h = harness({ list, limit: 5 });
    for (const doc of list) h.agreed.set(doc.id, { owner: doc.owner, statusId: 's1' });
    h.sweep.start();
    await advance(INTERVAL); // two whole sweeps: both documents seen
    expect(h.hints).toEqual([]);
    list.splice(0, 1); // lodged, or deleted
    await advance(INTERVAL); // the next sweep misses it
    expect(h.hints).toEqual([['a', true]]);
    await advance(3 * INTERVAL);
    expect(h.hints).toEqual([['a', true]]);
  });

  it('says nothing of a company the catalogue does not hold: the round finds it', async () => {
    const h = harness({ list: [form('1', 'new-co', 's1')], company: () => null });
    h.sweep.start();
    await advance(2 * INTERVAL);
    expect(h.calls).toHaveLength(3);
    expect(h.hints).toEqual([]);
    expect(h.sweep.stats.hints).toBe(0);
  });

  it('waits for the first sync before it reads the list, then reads it within an interval', async () => {
    let ready = false;
    const h = harness({ list: [form('1', 'a', 's1')], ready: () => ready });
    h.sweep.start();
    await advance(10 * INTERVAL);
    expect(h.calls).toEqual([]);
    await advance(INTERVAL / 2);
    ready = true;
    await advance(INTERVAL / 2);
    expect(h.moments()).toEqual([11 * INTERVAL]);
    expect(h.hints).toEqual([['known-a', false]]);
  });

  it('says a refused list once and asks again an hour later', async () => {
    const notFound = new ApiError('HTTP_ERROR', 'GET /cas/companies/documents/unlodged: 404', {
      route: 'GET /cas/companies/documents/unlodged',
      status: 404,
    });
    const h = harness({
      list: [],
      page: async () => {
        throw notFound;
      },
    });
    h.sweep.start();
    await advance(HOUR - 1);
    expect(h.moments()).toEqual([0]);
    expect(h.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      expect.stringContaining("the firm's unlodged list cannot be read (404)"),
    ]);
    await advance(1);
    expect(h.moments()).toEqual([0, HOUR]);
  });

  it('says a failing list once and starts the sweep again at its next request', async () => {
    let calls = 0;
    const h = harness({
      list: [],
      page: async () => {
        calls++;
        if (calls <= 3) throw new ApiError('NETWORK', 'connection reset', { route: 'GET x' });
        return { documents: [form('9', 'z', 's1')], malformed: 0, total: 1, limit: 2 };
      },
    });
    h.sweep.start();
    await advance(3 * INTERVAL);
    expect(h.moments()).toEqual([0, 1, 2, 3].map((n) => n * INTERVAL));
    expect(h.lines.filter((l) => l.level === 40)).toHaveLength(1);
    expect(h.lines.some((l) => l.msg === "the firm's unlodged list is read again")).toBe(true);
    expect(h.hints).toEqual([['known-z', false]]);
  });

  it('judges nothing missing after a sweep with a malformed item', async () => {
    const list = [form('1', 'a', 's1'), form('2', 'b', 's1')];
    let malformed = 0;
    const h = harness({
      list,
      limit: 5,
      page: async (offset) => ({
        documents: list.slice(offset),
        malformed,
        total: list.length + malformed,
        limit: 5,
      }),
    });
    for (const doc of list) h.agreed.set(doc.id, { owner: doc.owner, statusId: 's1' });
    h.sweep.start();
    await advance(INTERVAL);
    list.splice(0, 1);
    malformed = 1; // the item that broke the contract may be the one that seems gone
    await advance(3 * INTERVAL);
    expect(h.calls).toHaveLength(5);
    expect(h.hints).toEqual([]);
  });

  it('takes no page more once closed, and drops the answer of the one in flight', async () => {
    const list = [form('1', 'a', 's1')];
    let read = 0;
    const h = harness({
      list,
      agreed: (ids) => {
        read++;
        return new Map(ids.map((id) => [id, { owner: list[0]!.owner, statusId: 's0' }]));
      },
      page: (offset) =>
        answeredAfter(INTERVAL / 2, {
          documents: list.slice(offset),
          malformed: 0,
          total: 1,
          limit: 2,
        }),
    });
    h.sweep.start();
    await advance(INTERVAL / 4);
    h.sweep.close();
    await advance(10 * INTERVAL);
    expect(h.moments()).toEqual([0]);
    expect(read).toBe(0);
    expect(h.hints).toEqual([]);
  });
});
