import { describe, expect, it } from 'vitest';
import {
  checkSafety,
  HELD_ADVICE,
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

  describe('under the daemon: holds, the whole store and a rail that held (issue 25)', () => {
    const base = { local: 0, remote: 0, baseDocuments: 1000 };
    const UNTIL = Date.UTC(2026, 10, 25, 12, 0, 0);
    it.each([
      [
        'deletes in their hold elsewhere count with the due ones',
        plan(deletes('push-delete-document', 1), 2),
        { ...base, inHold: { local: 0, remote: 3 }, tripHoldsUntil: UNTIL },
        ['delete-count'],
        '4 remote document deletes exceed safety.maxDeleteCount 3; 4 held, none of them deleted; they wait for a person, and so does every further remote delete until 2026-11-25T12:00:00.000Z: `docsync deletes list`',
      ],
      [
        'the other side in its hold does not count',
        plan(deletes('push-delete-document', 1), 2),
        { ...base, inHold: { local: 9, remote: 0 } },
        [],
        null,
      ],
      [
        'nothing due: nothing is judged, however many wait their hold',
        plan([], 2),
        { ...base, inHold: { local: 0, remote: 900 } },
        [],
        null,
      ],
      [
        'what the window let through is counted and told apart from what is held',
        plan(deletes('push-delete-document', 2), 2),
        { ...base, remote: 2 },
        ['delete-count'],
        '4 remote document deletes exceed safety.maxDeleteCount 3; 2 of them deleted already within the window, the other 2 held;',
      ],
      [
        'the share is taken over the whole store with the holds in it',
        plan(deletes('push-delete-document', 1), 1),
        { local: 0, remote: 0, baseDocuments: 4, inHold: { local: 0, remote: 2 } },
        ['delete-percent'],
        '3 of 4 documents (75%) would be deleted remotely, over safety.maxDeletePercent 50; 3 held, none of them deleted',
      ],
      [
        'once a rail held a side, every due delete there waits for a person until the window ends',
        plan(deletes('push-delete-document', 1), 2),
        { ...base, holdingUntil: { remote: UNTIL } },
        ['delete-rail-held'],
        'a delete rail held remote document deletes lately; until 2026-11-25T12:00:00.000Z every remote delete waits for a person: `docsync deletes list`',
      ],
      [
        'a rail that held one side does not hold the other',
        plan(deletes('trash-local-document', 1), 2),
        { ...base, holdingUntil: { remote: UNTIL } },
        [],
        null,
      ],
    ] as const)('%s', (_name, p, window, expected, message) => {
      const verdict = checkSafety(p, { markerPresent: true, window }, rails);
      const tripped = verdict.ok ? [] : verdict.tripped;
      expect(tripped.map((t) => t.rail)).toEqual(expected);
      if (message) expect(tripped[0]!.message).toContain(message);
      // The reason a held delete keeps is the finding alone, without what to do.
      for (const t of tripped) expect(t.reason).not.toContain('docsync deletes');
      for (const t of tripped) expect(t.message).not.toContain('nothing was deleted');
    });

    it('`--once` (no window) says as before that nothing was deleted', () => {
      const verdict = checkSafety(
        plan(deletes('push-delete-document', 4), 100),
        { markerPresent: true },
        rails,
      );
      expect(verdict).toMatchObject({
        ok: false,
        tripped: [
          {
            rail: 'delete-count',
            message: `4 remote document deletes exceed safety.maxDeleteCount 3; ${HELD_ADVICE}`,
            reason: '4 remote document deletes exceed safety.maxDeleteCount 3',
          },
        ],
      });
    });
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
