/**
 * Which held deletes a sync settles (domain/held-deletes.ts): one carried out, one whose cause
 * went away once the sync could see it, a discard undone; and which it keeps: a delete still
 * planned, a restore that did not get through, a service deletion an incremental sync cannot see.
 */
import { describe, expect, it } from 'vitest';
import {
  type EntityDeleteFacts,
  type HeldDelete,
  heldKey,
  settledHeldDeletes,
} from '../../src/domain/held-deletes.js';

const row = (documentId: string, side: 'local' | 'remote'): HeldDelete => ({
  owner: { kind: 'company', id: '1' },
  documentId,
  side,
  folder: `Companies/Acme/${documentId}`,
  documentName: documentId,
  reason: 'over the limit',
  firstHeldAt: 1,
  lastHeldAt: 1,
  decision: null,
  decidedAt: null,
  dueAt: null,
});

const facts = (over: Partial<EntityDeleteFacts> = {}): EntityDeleteFacts => ({
  planned: new Set(),
  restoring: new Set(),
  inBase: () => true,
  judged: () => true,
  ...over,
});

const settled = (rows: HeldDelete[], f: EntityDeleteFacts) =>
  settledHeldDeletes(rows, f).map((r) => heldKey(r.side, r.documentId));

describe('settledHeldDeletes', () => {
  it('settles a delete carried out: the document left the base', () => {
    expect(settled([row('a', 'remote')], facts({ inBase: () => false }))).toEqual(['remote:a']);
  });

  it('keeps a delete still planned (held again, or approved and failed)', () => {
    const f = facts({ planned: new Set(['remote:a']) });
    expect(settled([row('a', 'remote')], f)).toEqual([]);
  });

  it('settles one no longer planned where the sync could see it: the folder is back', () => {
    expect(settled([row('a', 'remote')], facts())).toEqual(['remote:a']);
  });

  it('keeps a service deletion an incremental sync could not judge', () => {
    const f = facts({ judged: (side) => side === 'remote' });
    expect(settled([row('a', 'local'), row('b', 'remote')], f)).toEqual(['remote:b']);
  });

  it('keeps a discarded delete whose restore did not get through', () => {
    const f = facts({ restoring: new Set(['a']) });
    expect(settled([row('a', 'remote')], f)).toEqual([]);
  });
});
