/**
 * Row 29: what a rewrite of `.document.json` keeps of a status a person typed there.
 */
import { describe, expect, it } from 'vitest';
import { keepLocalStatus, localStatusEdit } from '../../src/domain/local-status-kept.js';
import type { DocumentMeta } from '../../src/domain/types.js';

const meta = (status: string | null, statusDate: string | null = '2024-05-01'): DocumentMeta => ({
  id: '1',
  owner: { kind: 'trust', id: '2' },
  name: 'Minutes',
  documentDate: '2024-05-01',
  traceNumber: null,
  asicDocNumber: null,
  status,
  statusDate,
  lastUpdatedTimestamp: '2024-05-01T00:00:00',
  attachments: [],
  link: 'https://app.example/d/1',
});

describe('a status typed into .document.json (row 29)', () => {
  it.each([
    ['the agreed status', meta('LODGED'), 'LODGED'],
    ['the agreed status in other letters and spaces (row 28)', meta(' lodged '), 'LODGED'],
    [
      'the agreed status with its date edited alone (row 28)',
      meta('LODGED', '2025-01-01'),
      'LODGED',
    ],
    ['no status, none agreed', meta(null), null],
    ['an empty status, none agreed', meta(''), null],
  ])('is no edit: %s', (_, found, agreed) => {
    expect(localStatusEdit(found, agreed)).toBeNull();
  });

  it('is no edit without a .document.json', () => {
    expect(localStatusEdit(null, 'LODGED')).toBeNull();
  });

  it('is an edit: another name, known or not, or the status cleared, with the date as typed', () => {
    expect(localStatusEdit(meta('Awaiting Partner Signoff', '2024-06-01'), 'LODGED')).toEqual({
      status: 'Awaiting Partner Signoff',
      statusDate: '2024-06-01',
    });
    expect(localStatusEdit(meta('cancelled'), 'LODGED')).toMatchObject({ status: 'cancelled' });
    expect(localStatusEdit(meta(null), 'LODGED')).toMatchObject({ status: null });
  });

  it('is kept in a rewrite that shows another status, the rest of the rewrite as written', () => {
    const edit = { status: 'Awaiting Partner Signoff', statusDate: '2024-06-01' };
    const written = { ...meta('RECEIVED', '2024-07-01'), lastUpdatedTimestamp: 'newer' };
    expect(keepLocalStatus(written, edit)).toEqual({
      ...written,
      status: 'Awaiting Partner Signoff',
      statusDate: '2024-06-01',
    });
  });

  it('goes once the rewrite shows that status (pushed, or chosen by the service too)', () => {
    const written = meta('CANCELLED', '2024-07-01');
    expect(keepLocalStatus(written, { status: 'cancelled', statusDate: null })).toBe(written);
    expect(keepLocalStatus(written, null)).toBe(written);
  });
});
