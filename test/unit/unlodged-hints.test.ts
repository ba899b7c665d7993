/** The firm-wide hint's rules (src/domain/unlodged-hints.ts), a case or more per numbered rule. */
import { describe, expect, it } from 'vitest';
import type { OwnerRef, UnlodgedDocument } from '../../src/domain/types.js';
import {
  type AgreedDocument,
  judgePage,
  judgeSweep,
  nextOffset,
  sightingOf,
  type UnlodgedSighting,
} from '../../src/domain/unlodged-hints.js';

const acme: OwnerRef = { kind: 'company', id: 'acme-1' };
const seen = (documentId: string, statusId: string | null, companyId = 'acme-1') =>
  ({ documentId, companyId, statusId }) satisfies UnlodgedSighting;
const agreed = (entries: [string, string | null][]) =>
  new Map<string, AgreedDocument>(entries.map(([id, statusId]) => [id, { owner: acme, statusId }]));

describe('judgePage', () => {
  it('1: a document the agreed state does not hold lists its company', () => {
    const { hints } = judgePage([seen('9', 's1', 'ACME1')], agreed([]), new Map());
    expect(hints).toEqual([
      {
        rule: 1,
        reason: 'new-document',
        documentId: '9',
        companyId: 'ACME1',
        owner: null,
        whole: false,
      },
    ]);
  });

  it('2: a status id other than the agreed one lists the company the agreed state names', () => {
    const { hints } = judgePage([seen('7', 's2', 'ACME1')], agreed([['7', 's1']]), new Map());
    expect(hints).toEqual([
      {
        rule: 2,
        reason: 'new-status',
        documentId: '7',
        companyId: 'ACME1',
        owner: acme,
        whole: false,
      },
    ]);
    // A status where the agreed state has none, and none where it has one, are new too.
    expect(judgePage([seen('7', 's1')], agreed([['7', null]]), new Map()).hints).toHaveLength(1);
    expect(judgePage([seen('7', null)], agreed([['7', 's1']]), new Map()).hints).toHaveLength(1);
  });

  it('3: the same document and status are hinted once; a later status is hinted again', () => {
    const first = judgePage([seen('7', 's2'), seen('9', null)], agreed([['7', 's1']]), new Map());
    expect(first.hints.map((h) => h.documentId)).toEqual(['7', '9']);
    const again = judgePage(
      [seen('7', 's2'), seen('9', null)],
      agreed([['7', 's1']]),
      first.hinted,
    );
    expect(again.hints).toEqual([]);
    const later = judgePage([seen('7', 's3')], agreed([['7', 's1']]), again.hinted);
    expect(later.hints.map((h) => [h.documentId, h.rule])).toEqual([['7', 2]]);
  });

  it('6: a document whose status is the agreed one gives no hint', () => {
    const judged = judgePage([seen('7', 's1')], agreed([['7', 's1']]), new Map());
    expect(judged).toEqual({ hints: [], hinted: new Map() });
  });
});

describe('judgeSweep', () => {
  const sweep = (entries: [string, string][]) => new Map(entries);

  it('4: a known document on the last whole sweep and gone from this one lists its company whole', () => {
    const { hints } = judgeSweep(
      sweep([
        ['7', 'ACME1'],
        ['8', 'ACME1'],
        ['unknown', 'ACME1'],
      ]),
      sweep([['8', 'ACME1']]),
      agreed([
        ['7', 's1'],
        ['8', 's1'],
      ]),
      new Map(),
    );
    // The one the agreed state never held was hinted as new when it was seen (rule 1).
    expect(hints).toEqual([
      {
        rule: 4,
        reason: 'left-the-list',
        documentId: '7',
        companyId: 'ACME1',
        owner: acme,
        whole: true,
      },
    ]);
  });

  it('4: what was hinted is forgotten once the document is off the list', () => {
    const { hinted } = judgeSweep(
      sweep([['7', 'ACME1']]),
      sweep([['8', 'ACME1']]),
      agreed([]),
      new Map([
        ['7', 's2'],
        ['8', 's1'],
      ]),
    );
    expect([...hinted.keys()]).toEqual(['8']);
  });

  it('5: a sweep cut short, or the first one, judges nothing missing', () => {
    const known = agreed([['7', 's1']]);
    expect(judgeSweep(sweep([['7', 'ACME1']]), null, known, new Map()).hints).toEqual([]);
    expect(judgeSweep(null, sweep([]), known, new Map()).hints).toEqual([]);
  });
});

describe('paging the list', () => {
  const doc = (id: string): UnlodgedDocument => ({
    id,
    owner: { kind: 'company', id: 'ACME1' },
    traceNumber: null,
    asicDocNumber: '2E1',
    name: 'Form 484',
    documentDate: '2026-01-01',
    status: {
      id: 's1',
      typeId: '2',
      type: 'DOCUMENT PREPARED',
      effectiveDate: '2026-01-01',
      createdBy: null,
    },
    lodgementDetails: null,
    company: { id: 'ACME1' },
  });
  const page = (count: number, total: number | null, malformed = 0) => ({
    documents: Array.from({ length: count }, (_, i) => doc(String(i))),
    malformed,
    total,
    limit: 500,
  });

  it('goes on while the total says there is more, counting items it left out', () => {
    expect(nextOffset(0, page(500, 1200))).toBe(500);
    expect(nextOffset(1000, page(199, 1200, 1))).toBeNull();
    expect(nextOffset(0, page(300, 1200))).toBe(300); // the service capped the page itself
  });

  it('without a total, ends on a short page; always ends on an empty one', () => {
    expect(nextOffset(0, page(500, null))).toBe(500);
    expect(nextOffset(500, page(20, null))).toBeNull();
    expect(nextOffset(500, page(0, 9000))).toBeNull();
  });

  it('reads an item as its document, its company and its status', () => {
    expect(sightingOf(doc('5'))).toEqual({ documentId: '5', companyId: 'ACME1', statusId: 's1' });
    expect(sightingOf({ ...doc('5'), status: null }).statusId).toBeNull();
  });
});
