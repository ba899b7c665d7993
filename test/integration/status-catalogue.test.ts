/**
 * The status types a cycle plans with (engine/catalogue.ts), on a real state file: a list that
 * cannot be read stops nothing. Never read, status pushes wait, said once, and only a full
 * cycle asks again; read before, the list kept is used; read at last, it replaces the types
 * learnt from documents meanwhile, but for a type an agreed status still names.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { StatusType } from '../../src/domain/types.js';
import { statusTypesOf } from '../../src/engine/catalogue.js';
import type { EngineDeps } from '../../src/engine/engine-deps.js';
import { ApiError } from '../../src/remote/api-error.js';
import { baseDocument, useStateStore } from '../helpers/state-store.js';

const stores = useStateStore();

const LIST: StatusType[] = [
  { id: '2', name: 'DOCUMENT PREPARED' },
  { id: '3', name: 'SENT TO CLIENT' },
];
const NOT_FOUND = new ApiError(
  'HTTP_ERROR',
  'GET /cas/documents/statusTypes answered 404 not_found',
  { route: 'GET /cas/documents/statusTypes', status: 404 },
);

/** The catalogue's deps: a real state, a service whose status types answer as `answer` says. */
function catalogueOf(answer: () => StatusType[]) {
  const state = stores.open();
  const warnings: string[] = [];
  let asked = 0;
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => warnings.push(JSON.parse(line).msg) },
  );
  const deps = {
    state,
    logger,
    now: () => 1_700_000_000_000,
    remote: {
      statusTypes: async () => {
        asked += 1;
        return answer();
      },
    },
  } as unknown as EngineDeps;
  return { deps, state, warnings, asked: () => asked };
}

describe('the status types a cycle plans with', () => {
  it('never read: status pushes wait, said once; only a full cycle asks again', async () => {
    const c = catalogueOf(() => {
      throw NOT_FOUND;
    });

    const full = await statusTypesOf(c.deps, true);
    c.state.statusTypes.learn([{ id: '10', name: 'RECEIVED' }]);
    const entitySync = await statusTypesOf(c.deps, false);

    expect(full.types).toEqual([]);
    expect(full.pushesWait).toMatch(
      /^the service's status types could not be read \(GET \/cas\/documents\/statusTypes answered 404 not_found\); statuses are kept by the names the documents carry/,
    );
    expect(c.warnings).toEqual([`status pushes wait: ${full.pushesWait}`]);
    // One entity's sync asks nobody: the learnt names, and pushes still wait.
    expect(c.asked()).toBe(1);
    expect(entitySync).toEqual({
      types: [{ id: '10', name: 'RECEIVED' }],
      pushesWait: full.pushesWait,
    });
    // No answer at all (the service unreachable, no login, a stop) stops the cycle as before:
    // the next request would meet the same, after its own retries.
    const unreachable = catalogueOf(() => {
      throw new ApiError('NETWORK', 'POST /oauth/token: connect ECONNREFUSED', {
        route: 'POST /oauth/token',
      });
    });
    await expect(statusTypesOf(unreachable.deps, true)).rejects.toThrow('ECONNREFUSED');
    const broken = catalogueOf(() => {
      throw new Error('not an answer of the service');
    });
    await expect(statusTypesOf(broken.deps, true)).rejects.toThrow('not an answer of the service');
  });

  it('read before: the list kept is used, pushes go, and the log says the list is old', async () => {
    let fails = false;
    const c = catalogueOf(() => {
      if (fails) throw NOT_FOUND;
      return LIST;
    });
    await statusTypesOf(c.deps, true);
    fails = true;

    const again = await statusTypesOf(c.deps, true);

    expect(again).toEqual({ types: LIST, pushesWait: null });
    expect(c.warnings).toEqual([
      'the status types could not be read again (GET /cas/documents/statusTypes answered 404 not_found); the list read on 2023-11-14T22:13:20.000Z is used',
    ]);
  });

  it('read at last: the list replaces the learnt types, and pushes go', async () => {
    let fails = true;
    const c = catalogueOf(() => {
      if (fails) throw NOT_FOUND;
      return LIST;
    });
    await statusTypesOf(c.deps, true);
    c.state.statusTypes.learn([
      { id: '10', name: 'RECEIVED' },
      { id: '3', name: 'SENT TO CLIENT' },
    ]);
    expect(c.state.statusTypes.list()).toHaveLength(2);
    fails = false;

    const read = await statusTypesOf(c.deps, true);

    expect(read).toEqual({ types: LIST, pushesWait: null });
    expect(c.state.statusTypes.list()).toEqual(LIST);
    expect(c.state.statusTypes.unreadable()).toBeNull();
  });

  it('keeps a type the list read again lacks while an agreed status still names it', async () => {
    // The service took CANCELLED out of its catalogue; document 1 still carries it, and its
    // `.document.json` must go on naming it. Type 21, carried by no document, goes.
    let list = [...LIST, { id: '20', name: 'CANCELLED' }, { id: '21', name: 'LODGED' }];
    const c = catalogueOf(() => list);
    await statusTypesOf(c.deps, true);
    for (const [id, statusTypeId] of [
      ['1', '20'],
      ['2', '3'],
    ] as const)
      c.state.base.put(
        baseDocument({ id, statusTypeId, folder: `Trusts/T/${id}`, attachments: [] }),
      );
    list = LIST;

    const read = await statusTypesOf(c.deps, true);

    const kept = [...LIST, { id: '20', name: 'CANCELLED' }];
    expect(read.types).toEqual(kept);
    expect(c.state.statusTypes.list()).toEqual(kept);
  });

  it('learns a type once, after the list, keeping the list as read', () => {
    const state = stores.open();
    state.statusTypes.replaceAll(LIST, 1000);
    state.statusTypes.learn([
      { id: '3', name: 'Sent' },
      { id: '21', name: 'LODGED' },
    ]);
    state.statusTypes.learn([{ id: '21', name: 'LODGED' }]);
    expect(state.statusTypes.list()).toEqual([...LIST, { id: '21', name: 'LODGED' }]);
    expect(state.statusTypes.fetchedAt()).toBe(1000);
  });
});
