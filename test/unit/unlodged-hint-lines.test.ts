/**
 * What the log says of the firm-wide hint (src/domain/unlodged-hint-lines.ts): one hint, its own
 * line; many, one line with the counts and the first companies.
 */
import { describe, expect, it } from 'vitest';
import { hintLine, hintSummary, type SentHint } from '../../src/domain/unlodged-hint-lines.js';
import type { UnlodgedHint } from '../../src/domain/unlodged-hints.js';

const company = (id: string) => ({ kind: 'company' as const, id });

function sent(
  documentId: string,
  companyId: string,
  reason: UnlodgedHint['reason'] = 'new-document',
): SentHint {
  const whole = reason === 'left-the-list';
  return {
    hint: {
      rule: reason === 'new-document' ? 1 : reason === 'new-status' ? 2 : 4,
      reason,
      documentId,
      companyId,
      owner: null,
      whole,
    },
    owner: company(companyId),
  };
}

describe('hintLine', () => {
  it.each([
    ['new-document', "the firm's unlodged list shows a new document 7: listing company a now"],
    [
      'new-status',
      "the firm's unlodged list shows a new status of document 7: listing company a now",
    ],
    [
      'left-the-list',
      "the firm's unlodged list shows document 7 gone from it (lodged or deleted): listing company a whole now",
    ],
  ] as const)('%s: %s', (reason, line) => {
    const { hint, owner } = sent('7', 'a', reason);
    expect(hintLine(hint, owner)).toBe(line);
  });
});

describe('hintSummary', () => {
  it('360 new documents in three companies: one line, the companies named', () => {
    const many = Array.from({ length: 360 }, (_, i) => sent(String(1000 + i), 'abc'[i % 3]!));
    const { line, fields } = hintSummary(many);
    expect(line).toBe(
      "the firm's unlodged list shows 360 changes (360 new documents): listing 3 companies now: company a, company b, company c",
    );
    expect(fields).toMatchObject({
      hints: 360,
      newDocuments: 360,
      newStatuses: 0,
      goneFromList: 0,
    });
    expect(fields.owners).toEqual(['company:a', 'company:b', 'company:c']);
    expect(fields.documentIds).toEqual([
      '1000',
      '1001',
      '1002',
      '1003',
      '1004',
      '1005',
      '1006',
      '1007',
      '1008',
      '1009',
    ]);
  });

  it('every kind, in more companies than it names; a company listed whole says so', () => {
    const { line } = hintSummary([
      sent('1', 'a'),
      sent('2', 'b', 'new-status'),
      sent('3', 'b', 'new-status'),
      sent('4', 'a', 'left-the-list'),
      sent('5', 'c'),
      sent('6', 'd'),
      sent('7', 'e'),
    ]);
    expect(line).toBe(
      "the firm's unlodged list shows 7 changes (4 new documents, 2 new statuses, 1 gone from it (lodged or deleted)): listing 5 companies now: company a whole, company b, company c and 2 more",
    );
  });
});
