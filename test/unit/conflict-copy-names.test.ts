/**
 * Which files are conflict copies of a file (docs/sync-decision-table.md: `<name> (conflict
 * yyyy-mm-dd hhmm).<ext>`, ` (2)` when taken): a copy an earlier try of row 43 placed is
 * recognised by this (engine/identical-clashes.ts), and nothing else is.
 */
import { describe, expect, it } from 'vitest';
import { claimName, conflictName, isConflictCopyOf } from '../../src/domain/file-names.js';

describe('isConflictCopyOf', () => {
  it.each([
    ['minutes (conflict 2030-01-07 0900).pdf', 'minutes.pdf', true],
    ['Minutes (Conflict 2030-01-07 0900).PDF', 'minutes.pdf', true],
    ['minutes (conflict 2030-01-07 0900) (2).pdf', 'minutes.pdf', true],
    ['notes (conflict 2030-01-07 0900)', 'notes', true],
    ['minutes.pdf', 'minutes.pdf', false],
    ['minutes (2).pdf', 'minutes.pdf', false],
    ['minutes (conflict 2030-01-07).pdf', 'minutes.pdf', false],
    ['minutes (conflict 2030-01-07 0900).docx', 'minutes.pdf', false],
    ['board minutes (conflict 2030-01-07 0900).pdf', 'minutes.pdf', false],
    ['minutes (local edit).pdf', 'minutes.pdf', false],
  ])('%s of %s: %s', (file, original, expected) => {
    expect(isConflictCopyOf(file, original)).toBe(expected);
  });

  it('recognises every name the planner gives a copy', () => {
    const taken = new Set<string>();
    const first = claimName(conflictName('a.b.pdf', '2030-01-07 0900'), taken);
    const second = claimName(conflictName('a.b.pdf', '2030-01-07 0900'), taken);
    expect([first, second]).toEqual([
      'a.b (conflict 2030-01-07 0900).pdf',
      'a.b (conflict 2030-01-07 0900) (2).pdf',
    ]);
    for (const name of [first, second]) expect(isConflictCopyOf(name, 'a.b.pdf')).toBe(true);
  });
});
