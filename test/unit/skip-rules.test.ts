import { describe, expect, it } from 'vitest';
import { escapeBytes, escapeControls, SKIP_REASONS } from '../../src/local/skip-rules.js';

describe('names shown for entries not synced', () => {
  it.each([
    ['new\nline.txt', 'new\\nline.txt'],
    ['tab\there\r.pdf', 'tab\\there\\r.pdf'],
    ['esc\u001b del\u007f nel\u0085.pdf', 'esc\\x1b del\\x7f nel\\u0085.pdf'],
    ['Café ✓ 日本.pdf', 'Café ✓ 日本.pdf'],
  ])('escapes the control characters of %j', (name, shown) => {
    expect(escapeControls(name)).toBe(shown);
  });

  it.each([
    [[0x63, 0x61, 0x66, 0xe9], 'caf\\xe9'],
    [[0xe2, 0x82, 0xac, 0xff, 0x41], '€\\xffA'],
    [[0xe2, 0x82, 0x41], '\\xe2\\x82A'],
    [[0xed, 0xa0, 0x80], '\\xed\\xa0\\x80'],
    [[0x0a, 0xc3, 0xa9], '\\né'],
  ])('shows the bytes %j as %j', (bytes, shown) => {
    expect(escapeBytes(Uint8Array.from(bytes))).toBe(shown);
  });

  it('names the control character a user has to remove', () => {
    expect(SKIP_REASONS.control('a\u0007b')).toBe(
      'a name with a control character (U+0007), which the service cannot store: rename it without it',
    );
  });
});
