/**
 * The names docsync gives a file beside one of the same name (docs/sync-decision-table.md: its
 * conflict copy `<name> (conflict yyyy-mm-dd hhmm).<ext>`, ` (2)` when taken): a file an earlier
 * try of a pull placed is recognised by them (engine/identical-clashes.ts), and by nothing else;
 * row 42's copy of a try cut after its rename, by its conflict name alone.
 */
import { describe, expect, it } from 'vitest';
import {
  claimName,
  conflictName,
  isConflictCopyOf,
  isCopyNameOf,
} from '../../src/domain/file-names.js';

describe('isCopyNameOf', () => {
  it.each([
    ['minutes (conflict 2030-01-07 0900).pdf', 'minutes.pdf', true],
    ['Minutes (Conflict 2030-01-07 0900).PDF', 'minutes.pdf', true],
    ['minutes (conflict 2030-01-07 0900) (2).pdf', 'minutes.pdf', true],
    ['notes (conflict 2030-01-07 0900)', 'notes', true],
    ['minutes.pdf', 'minutes.pdf', false],
    ['minutes (2).pdf', 'minutes.pdf', true],
    ['minutes (draft).pdf', 'minutes.pdf', false],
    ['minutes (conflict 2030-01-07).pdf', 'minutes.pdf', false],
    ['minutes (conflict 2030-01-07 0900).docx', 'minutes.pdf', false],
    ['board minutes (conflict 2030-01-07 0900).pdf', 'minutes.pdf', false],
    ['minutes (local edit).pdf', 'minutes.pdf', false],
  ])('%s of %s: %s', (file, original, expected) => {
    expect(isCopyNameOf(file, original)).toBe(expected);
  });

  it('recognises every name the planner gives a copy', () => {
    const taken = new Set<string>();
    const first = claimName(conflictName('a.b.pdf', '2030-01-07 0900'), taken);
    const second = claimName(conflictName('a.b.pdf', '2030-01-07 0900'), taken);
    expect([first, second]).toEqual([
      'a.b (conflict 2030-01-07 0900).pdf',
      'a.b (conflict 2030-01-07 0900) (2).pdf',
    ]);
    for (const name of [first, second]) expect(isCopyNameOf(name, 'a.b.pdf')).toBe(true);
  });
});

describe('isConflictCopyOf', () => {
  it.each([
    ['minutes (conflict 2030-01-07 0900).pdf', 'minutes.pdf', true],
    ['Minutes (Conflict 2030-01-07 0900).PDF', 'minutes.pdf', true],
    ['minutes (conflict 2030-01-07 0900) (2).pdf', 'minutes.pdf', true],
    ['notes (conflict 2030-01-07 0900)', 'notes', true],
    // A numbered name alone is a pull's, not a conflict's (row 44).
    ['minutes (2).pdf', 'minutes.pdf', false],
    ['minutes.pdf', 'minutes.pdf', false],
    ['minutes (conflict 2030-01-07).pdf', 'minutes.pdf', false],
    ['minutes (conflict 2030-01-07 0900).docx', 'minutes.pdf', false],
    ['board minutes (conflict 2030-01-07 0900).pdf', 'minutes.pdf', false],
    ['a.b', 'a.b.b', false],
  ])('%s of %s: %s', (file, original, expected) => {
    expect(isConflictCopyOf(file, original)).toBe(expected);
  });

  it("recognises the copy the planner gives the folder's file (row 42)", () => {
    const taken = new Set(['letter.pdf']);
    const copy = claimName(conflictName('letter.pdf', '2030-01-07 0900'), taken);
    expect(isConflictCopyOf(copy, 'letter.pdf')).toBe(true);
  });
});
