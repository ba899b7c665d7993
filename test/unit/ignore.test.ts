import { describe, expect, it } from 'vitest';
import { isIgnored } from '../../src/local/ignore.js';

describe('isIgnored', () => {
  it.each([
    ['~$Minutes.docx', true],
    ['.~lock.Budget.ods#', true],
    ['.notes.txt.swp', true],
    ['.notes.txt.swx', true],
    ['~WRL0001.tmp', true],
    ['REPORT.TMP', true],
    ['notes.txt~', true],
    ['.#notes.txt', true],
    ['4913', true],
    ['.DS_Store', true],
    ['thumbs.db', true],
    ['Desktop.ini', true],
    ['Companies/Acme/2024-01-01 X/~$a.docx', true],
    ['Minutes.pdf', false],
    ['49130', false],
    ['tmp.pdf', false],
    ['a.swp.pdf', false],
    ['.document.json', false],
    ['.entity.json', false],
    ['Open in compliance service.url', false],
  ])('%s → %s', (name, expected) => {
    expect(isIgnored(name)).toBe(expected);
  });

  it('adds configured globs, by name or by path', () => {
    expect(isIgnored('draft.bak', ['*.bak'])).toBe(true);
    expect(isIgnored('Companies/Acme/scratch/a.pdf', ['**/scratch/**'])).toBe(true);
    expect(isIgnored('Companies/Acme/2024-01-01 X/a.pdf', ['**/scratch/**'])).toBe(false);
    expect(isIgnored('draft.bak')).toBe(false);
  });
});
