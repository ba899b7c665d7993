import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  companyFolderName,
  documentFolderName,
  localEditName,
  parseDocumentFolderName,
  trustFolderName,
} from '../../src/domain/local-folder-names.js';
import {
  byteLength,
  MAX_NAME_BYTES,
  pickFreeName,
  toLocalName,
} from '../../src/domain/local-names.js';

/** What every local name must be, on every platform. */
function expectLegal(name: string): void {
  expect(name).not.toMatch(/[<>:"/\\|?*\p{Cc}\p{Cf}]/u);
  expect(name).not.toMatch(/[. ]$/u);
  expect(name).not.toMatch(/^\./u);
  expect(name).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/iu);
  expect(['', '.', '..']).not.toContain(name);
  expect(byteLength(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
  expect(Buffer.byteLength(name, 'utf8')).toBe(byteLength(name));
  expect(name).toBe(name.normalize('NFC'));
  expect(name).not.toMatch(/\uFFFD/u);
  const root = '/srv/docs';
  const joined = path.resolve(root, 'Companies', name);
  expect(path.dirname(joined)).toBe(path.join(root, 'Companies'));
}

const longMultibyte = `${'日本語の書類'.repeat(20)}.pdf`; // 360+ bytes
const hostile: [string, string, string][] = [
  ['parent traversal', '../../x', '_._._x'],
  ['absolute path', '/etc/passwd', '_etc_passwd'],
  ['reserved name', 'CON', 'CON_'],
  ['reserved with extension', 'con.txt', 'con_.txt'],
  ['reserved lpt with space', 'LPT1 .pdf', 'LPT1_.pdf'],
  ['slash inside', 'a/b', 'a_b'],
  ['backslash inside', 'a\\b', 'a_b'],
  ['trailing dots and spaces', 'report. . ', 'report'],
  ['empty', '', '_'],
  ['only dots', '...', '_'],
  ['dot', '.', '_'],
  ['dot dot', '..', '_'],
  ['control characters', 'a\u0000b\u001fc\u007f.pdf', 'a_b_c_.pdf'],
  ['windows punctuation', 'Q1: <draft> "final"? | *.pdf', 'Q1_ _draft_ _final__ _ _.pdf'],
  ['NFD input', 'Cafe\u0301.pdf', 'Caf\u00e9.pdf'],
  ['right-to-left override', 'Invoice\u202Efdp.exe', 'Invoice_fdp.exe'],
  [
    'bidi embeddings and isolates',
    '\u202Aa\u202Bb\u202Cc\u2066d\u2067e\u2068f\u2069.pdf',
    '_a_b_c_d_e_f_.pdf',
  ],
  ['zero-width characters', 'in\u200Bvoice\u200C\u200D\u200E\u200F.pdf', 'in_voice____.pdf'],
  ['byte order mark', '\uFEFFminutes.pdf', '_minutes.pdf'],
  ['soft hyphen and word joiner', 'co\u00ADop\u2060.pdf', 'co_op_.pdf'],
  ['our own metadata name', '.document.json', '_document.json'],
  ['hidden name', '.docsync', '_docsync'],
  ['lone surrogate', 'a\uD800b.pdf', 'a_b.pdf'],
  ['leading spaces', '   x.pdf', 'x.pdf'],
  ['plain', 'Trustee Minutes.pdf', 'Trustee Minutes.pdf'],
];

describe('toLocalName', () => {
  it.each(hostile)('%s: %j → %j', (_label, input, expected) => {
    const name = toLocalName(input);
    expect(name).toBe(expected);
    expectLegal(name);
  });

  it('cuts a 300-byte multibyte name on a character boundary and keeps the extension', () => {
    const name = toLocalName(longMultibyte);
    expectLegal(name);
    expect(name.endsWith('.pdf')).toBe(true);
    expect(byteLength(name)).toBeGreaterThan(MAX_NAME_BYTES - 4);
  });

  it('cuts 4-byte characters (emoji) without splitting a surrogate pair', () => {
    const name = toLocalName(`${'😀'.repeat(80)}.docx`);
    expectLegal(name);
    expect(name).toBe(`${'😀'.repeat(48)}.docx`);
  });

  it('keeps a folder name whole: a dot in it is no extension', () => {
    expect(toLocalName('Smith Pty. Ltd', 'folder')).toBe('Smith Pty. Ltd');
  });

  it('is stable: the same remote name always gives the same local name', () => {
    for (const [, input] of hostile)
      expect(toLocalName(toLocalName(input))).toBe(toLocalName(input));
  });
});

describe('pickFreeName', () => {
  it('returns the name itself when free', () => {
    expect(pickFreeName('a.pdf', ['b.pdf'])).toBe('a.pdf');
  });

  it('adds (2), (3) before the extension, also for case-insensitive collisions', () => {
    expect(pickFreeName('Report.pdf', ['report.PDF'])).toBe('Report (2).pdf');
    expect(pickFreeName('Report.pdf', ['report.pdf', 'REPORT (2).pdf'])).toBe('Report (3).pdf');
  });

  it('treats NFC and NFD spellings as the same name', () => {
    expect(pickFreeName('Caf\u00e9.pdf', ['Cafe\u0301.pdf'])).toBe('Caf\u00e9 (2).pdf');
  });

  it('puts the counter at the end of a folder name', () => {
    expect(pickFreeName('Smith Pty. Ltd', ['smith pty. ltd'], { kind: 'folder' })).toBe(
      'Smith Pty. Ltd (2)',
    );
  });

  it('stays within the byte limit with a counter', () => {
    const name = pickFreeName(longMultibyte, [toLocalName(longMultibyte)]);
    expectLegal(name);
    expect(name.endsWith(' (2).pdf')).toBe(true);
  });

  it('escapes names that the ignore list would hide', () => {
    const avoid = (n: string) => n.startsWith('~$') || n.endsWith('.tmp');
    expect(pickFreeName('~$budget.xlsx', [], { avoid })).toBe('_~$budget.xlsx');
    expect(pickFreeName('upload.tmp', [], { avoid })).toBe('upload.tmp_');
  });

  it('is deterministic', () => {
    const taken = ['a.pdf', 'A (2).pdf'];
    expect(pickFreeName('a.pdf', taken)).toBe(pickFreeName('a.pdf', [...taken].reverse()));
  });
});

describe('folder names', () => {
  it('company: name and ACN grouped 3-3-3', () => {
    expect(companyFolderName('Acme Pty Ltd', '123456789')).toBe('Acme Pty Ltd (123 456 789)');
    expect(companyFolderName('Acme Pty Ltd', null)).toBe('Acme Pty Ltd');
  });

  it('trust: name and ABN grouped 2-3-3-3, or the bare name', () => {
    expect(trustFolderName('Smith Family Trust', '12345678901')).toBe(
      'Smith Family Trust (12 345 678 901)',
    );
    expect(trustFolderName('Smith Family Trust', null)).toBe('Smith Family Trust');
    expect(trustFolderName('A/B Trust', '')).toBe('A_B Trust');
  });

  it('keeps the number when a long entity name is cut', () => {
    const name = companyFolderName('X'.repeat(300), '123 456 789');
    expectLegal(name);
    expect(name.endsWith(' (123 456 789)')).toBe(true);
  });

  it('document: date, name and id; the id survives a hostile or long name', () => {
    expect(documentFolderName('2020-07-03', 'Trustee Minutes', '1075468')).toBe(
      '2020-07-03 Trustee Minutes [1075468]',
    );
    const hostileName = documentFolderName('2020-07-03', '../../etc/passwd', '../1');
    expectLegal(hostileName);
    expect(hostileName).toBe('2020-07-03 _._.._etc_passwd [_._1]');
    const long = documentFolderName('2020-07-03', 'é'.repeat(300), '42');
    expectLegal(long);
    expect(long.endsWith(' [42]')).toBe(true);
  });

  it.each([
    ['2024-02-29 Board minutes', { date: '2024-02-29', name: 'Board minutes' }],
    ['2023-02-29 Board minutes', { date: null, name: '2023-02-29 Board minutes' }],
    ['Board minutes', { date: null, name: 'Board minutes' }],
    ['2024-13-01 x', { date: null, name: '2024-13-01 x' }],
    ['2024-01-05', { date: '2024-01-05', name: '2024-01-05' }],
    ['  2024-01-05   Trust deed  ', { date: '2024-01-05', name: 'Trust deed' }],
  ])('parses the user folder %j', (folder, expected) => {
    expect(parseDocumentFolderName(folder)).toEqual(expected);
  });

  it('local-edit copies keep the extension', () => {
    expect(localEditName('Minutes.pdf')).toBe('Minutes (local edit).pdf');
    const long = localEditName(longMultibyte);
    expectLegal(long);
    expect(long.endsWith(' (local edit).pdf')).toBe(true);
  });
});
