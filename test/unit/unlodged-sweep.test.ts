/**
 * The daemon's sweep of the firm's unlodged list (src/daemon/unlodged-sweep.ts) with an
 * in-memory list: its pace, its paging, what it hints, and what it does when the list fails.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { UnlodgedSweep, type UnlodgedSweepDeps } from '../../src/daemon/unlodged-sweep.js';
import type { OwnerRef, UnlodgedDocument } from '../../src/domain/types.js';
import type { AgreedDocument, UnlodgedPage } from '../../src/domain/unlodged-hints.js';
import { createLogger } from '../../src/log/create-logger.js';
import { ApiError } from '../../src/remote/api-error.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `check` holds (a loaded machine may run the sweep late, never early). */
async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(5);
  }
}
const INTERVAL = 30;

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
afterEach(() => {
  for (const sweep of sweeps.splice(0)) sweep.close();
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
    page: async (offset): Promise<UnlodgedPage> => {
      calls.push({ offset, at: performance.now() });
      return {
        documents: over.list.slice(offset, offset + limit),
        malformed: 0,
        total: over.list.length,
        limit,
      };
    },
    agreed: (ids) => new Map(ids.flatMap((id) => (agreed.has(id) ? [[id, agreed.get(id)!]] : []))),
    company: (id): OwnerRef => ({ kind: 'company', id: `known-${id}` }),
    ready: () => true,
    hint: (owner, whole) => hints.push([owner.id, whole]),
    intervalMs: INTERVAL,
    logger: createLogger({ level: 'info', destination, pretty: false }),
    onError: (error) => {
      throw error;
    },
    ...over,
  };
  const sweep = new UnlodgedSweep(deps);
  sweeps.push(sweep);
  return { sweep, calls, hints, lines, agreed };
}

describe('UnlodgedSweep', () => {
  it('pages the list over and over, one request per interval, and hints what the state lacks', async () => {
    const list = [form('1', 'a', 's1'), form('2', 'b', 's1'), form('3', 'c', 's1')];
    const h = harness({ list });
    h.agreed.set('1', { owner: { kind: 'company', id: 'a' }, statusId: 's1' });
    h.agreed.set('2', { owner: { kind: 'company', id: 'b' }, statusId: 's0' });
    h.sweep.start();
    await until(() => h.calls.length >= 6);
    h.sweep.close();
    expect(h.calls.slice(0, 4).map((c) => c.offset)).toEqual([0, 2, 0, 2]);
    const gaps = h.calls.slice(1).map((c, i) => c.at - h.calls[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(INTERVAL - 2);
    // A new status of a known document (its owner from the state), a new document (its company
    // from the catalogue); each once, however many sweeps see it.
    expect(h.hints).toEqual([
      ['b', false],
      ['known-c', false],
    ]);
    expect(h.sweep.stats.sweeps).toBeGreaterThanOrEqual(2);
  });

  it('lists whole the company of a known document gone from the list between two whole sweeps', async () => {
    const list = [form('1', 'a', 's1'), form('2', 'b', 's1')];
    const h = harness({ list, limit: 5 });
    for (const doc of list) h.agreed.set(doc.id, { owner: doc.owner, statusId: 's1' });
    h.sweep.start();
    await until(() => h.calls.length >= 2);
    list.splice(0, 1); // lodged, or deleted
    await until(() => h.hints.length > 0);
    await until(() => h.calls.length >= 6);
    expect(h.hints).toEqual([['a', true]]);
  });

  it('waits for the first sync before it reads the list', async () => {
    let ready = false;
    const h = harness({ list: [form('1', 'a', 's1')], ready: () => ready });
    h.sweep.start();
    await sleep(INTERVAL * 3);
    expect(h.calls).toEqual([]);
    ready = true;
    await until(() => h.calls.length > 0);
  });

  it('says a refused list once and pauses; says a failing one once and starts the sweep again', async () => {
    const notFound = new ApiError('HTTP_ERROR', 'GET /cas/companies/documents/unlodged: 404', {
      route: 'GET /cas/companies/documents/unlodged',
      status: 404,
    });
    let asked = 0;
    const refused = harness({
      list: [],
      page: async () => {
        asked++;
        throw notFound;
      },
    });
    refused.sweep.start();
    await until(() => refused.lines.length > 0);
    await sleep(INTERVAL * 4);
    expect(asked).toBe(1); // paused for an hour
    expect(refused.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      expect.stringContaining("the firm's unlodged list cannot be read (404)"),
    ]);

    let calls = 0;
    const flaky = harness({
      list: [],
      page: async () => {
        calls++;
        if (calls <= 3) throw new ApiError('NETWORK', 'connection reset', { route: 'GET x' });
        return { documents: [form('9', 'z', 's1')], malformed: 0, total: 1, limit: 2 };
      },
    });
    flaky.sweep.start();
    await until(() => flaky.hints.length > 0);
    const warned = flaky.lines.filter((l) => l.level === 40);
    expect(warned).toHaveLength(1);
    expect(flaky.lines.some((l) => l.msg === "the firm's unlodged list is read again")).toBe(true);
    expect(flaky.hints).toEqual([['known-z', false]]);
  });

  it('judges nothing missing after a sweep with a malformed item', async () => {
    const list = [form('1', 'a', 's1'), form('2', 'b', 's1')];
    let malformed = 0;
    let read = 0;
    const h = harness({
      list,
      limit: 5,
      page: async (offset) => {
        read++;
        return {
          documents: list.slice(offset),
          malformed,
          total: list.length + malformed,
          limit: 5,
        };
      },
    });
    for (const doc of list) h.agreed.set(doc.id, { owner: doc.owner, statusId: 's1' });
    h.sweep.start();
    await until(() => read >= 2);
    list.splice(0, 1);
    malformed = 1; // the item that broke the contract may be the one that seems gone
    const after = read;
    await until(() => read >= after + 3);
    expect(h.hints).toEqual([]);
  });
});
