/**
 * The order of a folder scan pass (issue 28): entities a stop left work in come first, so the
 * start compares and syncs them within seconds; the rest keep their order.
 */
import { describe, expect, it } from 'vitest';
import { scanOrder } from '../../src/daemon/scan-order.js';
import type { OwnerRef } from '../../src/domain/types.js';

const company = (id: string): OwnerRef => ({ kind: 'company', id });
const folders = ['1', '2', '3', '4'].map((id) => ({ owner: company(id), folder: `C/${id}` }));
const ids = (list: readonly { owner: OwnerRef }[]) => list.map((f) => f.owner.id);
const cycle = (owner: OwnerRef | null, result: string | null, finishedAt: number | null = 1) => ({
  owner,
  result,
  finishedAt,
});

describe('scanOrder', () => {
  it.each([
    ['nothing left: the folders as they are', [], [], ['1', '2', '3', '4']],
    [
      'a sync a stop interrupted goes first',
      [cycle(company('3'), 'interrupted')],
      [],
      ['3', '1', '2', '4'],
    ],
    [
      'a sync with no end recorded (a crash) goes first',
      [cycle(company('4'), null, null)],
      [],
      ['4', '1', '2', '3'],
    ],
    [
      'finished syncs, and a round of every entity, change nothing',
      [cycle(company('2'), 'ok'), cycle(company('3'), 'error'), cycle(null, 'interrupted')],
      [],
      ['1', '2', '3', '4'],
    ],
    ['local work still waiting goes first', [], [{ owner: company('2') }], ['2', '1', '3', '4']],
    [
      'both, each once, in the folders’ order',
      [cycle(company('4'), 'interrupted'), cycle(company('2'), 'interrupted')],
      [{ owner: company('4') }],
      ['2', '4', '1', '3'],
    ],
  ] as const)('%s', (_case, cycles, waiting, expected) => {
    expect(ids(scanOrder(folders, { cycles, waiting }))).toEqual(expected);
  });

  it('leaves a trust and a company of the same id apart', () => {
    const mixed = [{ owner: company('7') }, { owner: { kind: 'trust', id: '7' } as OwnerRef }];
    const ordered = scanOrder(mixed, {
      cycles: [],
      waiting: [{ owner: { kind: 'trust', id: '7' } }],
    });
    expect(ordered.map((f) => f.owner.kind)).toEqual(['trust', 'company']);
  });
});
