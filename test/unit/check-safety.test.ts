import { describe, expect, it } from 'vitest';
import {
  checkSafety,
  railsMayHold,
  type SafetyPolicy,
  withoutDeletes,
} from '../../src/domain/check-safety.js';
import type { SyncAction, SyncPlan } from '../../src/domain/sync-actions.js';
import { owner } from '../helpers/plan-fixtures.js';

const rails: SafetyPolicy = { maxDeletePercent: 50, maxDeleteCount: 3, forceDeletes: false };

function deletes(
  kind: 'trash-local-document' | 'push-delete-document',
  n: number,
  source = 'full-listing' as const,
): SyncAction[] {
  return Array.from({ length: n }, (_, i) => {
    const common = {
      row: kind === 'push-delete-document' ? 8 : 11,
      owner,
      documentId: String(i),
      documentName: 'D',
      folder: `f${i}`,
    };
    return kind === 'push-delete-document'
      ? { ...common, kind }
      : { ...common, kind, mode: 'trash' as const, source };
  });
}

function plan(
  actions: SyncAction[],
  baseDocuments: number,
  listedDocuments: number | null = null,
): SyncPlan {
  return {
    owner,
    documents: actions.map((a) => ({
      key: a.documentId ?? '',
      documentId: a.documentId,
      actions: [a],
    })),
    actions,
    summary: {},
    held: false,
    stats: { baseDocuments, listedDocuments },
  };
}

describe('checkSafety', () => {
  it.each([
    ['under both limits', plan(deletes('trash-local-document', 2), 10), rails, true, []],
    [
      'too many local deletes by count',
      plan(deletes('trash-local-document', 4), 100),
      rails,
      false,
      ['delete-count'],
    ],
    [
      'too many remote deletes by count',
      plan(deletes('push-delete-document', 4), 100),
      rails,
      false,
      ['delete-count'],
    ],
    [
      'too large a share',
      plan(deletes('push-delete-document', 3), 4),
      rails,
      false,
      ['delete-percent'],
    ],
    ['exactly the limits', plan(deletes('push-delete-document', 3), 6), rails, true, []],
    [
      'forced',
      plan(deletes('trash-local-document', 9), 10),
      { ...rails, forceDeletes: true },
      true,
      [],
    ],
    [
      'empty listing for an entity with documents',
      plan(deletes('trash-local-document', 2), 10, 0),
      rails,
      false,
      ['empty-listing'],
    ],
    [
      'empty listing, even forced',
      plan(deletes('trash-local-document', 2), 10, 0),
      { ...rails, forceDeletes: true },
      false,
      ['empty-listing'],
    ],
    [
      'empty listing, deletes from events only',
      plan(deletes('trash-local-document', 1, 'delete-event' as 'full-listing'), 10, 0),
      rails,
      true,
      [],
    ],
  ] as const)('%s', (_name, p, policy, ok, tripped) => {
    const verdict = checkSafety(p, { markerPresent: true }, policy);
    expect(verdict.ok).toBe(ok);
    expect(verdict.ok ? [] : verdict.tripped.map((t) => t.rail)).toEqual(tripped);
  });

  it('stops everything without the root marker', () => {
    const verdict = checkSafety([plan([], 0)], { markerPresent: false }, rails);
    expect(verdict).toMatchObject({
      ok: false,
      tripped: [{ rail: 'root-marker-missing', effect: 'no-run' }],
    });
  });

  it('takes the share over the whole cycle when given every plan', () => {
    const verdict = checkSafety(
      [plan(deletes('push-delete-document', 2), 2), plan([], 8)],
      { markerPresent: true },
      rails,
    );
    expect(verdict.ok).toBe(true);
  });

  it('judges one entity against the rolling window: what it let through counts, over the whole store', () => {
    const window = { local: 2, remote: 0, baseDocuments: 1000 };
    // 2 let through already + 2 now > 3: held, although this entity alone is under the limit.
    const over = checkSafety(
      plan(deletes('trash-local-document', 2), 2),
      { markerPresent: true, window },
      rails,
    );
    expect(over).toMatchObject({ ok: false, tripped: [{ rail: 'delete-count', side: 'local' }] });
    // 2 of this entity's 2 documents is 100 %, but 4 of the store's 1,000 is not over 50 %.
    const fine = checkSafety(
      plan(deletes('trash-local-document', 1), 2),
      { markerPresent: true, window },
      rails,
    );
    expect(fine.ok).toBe(true);
    // The other side's window does not count, and an entity that deletes nothing is not judged.
    const otherSide = { local: 0, remote: 50, baseDocuments: 60 };
    expect(
      checkSafety(
        plan(deletes('trash-local-document', 1), 2),
        { markerPresent: true, window: otherSide },
        rails,
      ).ok,
    ).toBe(true);
    expect(checkSafety(plan([], 2), { markerPresent: true, window: otherSide }, rails).ok).toBe(
      true,
    );
  });

  it('drops document deletes, keeping their base for the next cycle', () => {
    const p = plan(deletes('push-delete-document', 2), 5);
    expect(withoutDeletes(p).actions).toEqual([]);
  });

  it('can hold back only documents that delete, so the others may run before it has judged', () => {
    const [trash] = deletes('trash-local-document', 1);
    const [remove] = deletes('push-delete-document', 1);
    const pull = { ...trash!, kind: 'pull-attachment' } as unknown as SyncAction;
    const doc = (...actions: SyncAction[]) => ({ key: 'k', documentId: '1', actions });
    expect(railsMayHold(doc(trash!))).toBe(true);
    expect(railsMayHold(doc(pull, remove!))).toBe(true);
    expect(railsMayHold(doc(pull))).toBe(false);
  });
});
