/**
 * Remote names → names that are legal on Windows, macOS and Linux (daemon.md, "The folder").
 * Pure: the same remote name always gives the same local name, so a name never flips between
 * runs. A name made here is one path segment: it can never hold a separator, be `.` or `..`, or
 * be empty, so no remote name can lead a path out of the root.
 */

/** Longest name in UTF-8 bytes: well under the 255-byte limit of ext4, APFS and NTFS. */
export const MAX_NAME_BYTES = 200;

/** An extension we keep through truncation and before ` (2)`: short, no spaces or dots. */
const EXTENSION = /\.[^.\s]{1,16}$/u;

/** Windows refuses these whatever follows the first dot (`con.txt` is `CON`). */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(?=\s*(\.|$))/iu;

/**
 * Windows' forbidden punctuation, every control character (C0, DEL, C1), and every invisible
 * format character (Unicode's Cf: the bidirectional overrides and isolates U+202A–202E and
 * U+2066–2069, the zero-width U+200B–200F, U+FEFF, ...). A right-to-left override in a service
 * name would show `Invoice\u202Efdp.exe` as `Invoiceexe.pdf` in a file manager; the name as the
 * service has it is still what logs and the status page show.
 */
const ILLEGAL = /[<>:"/\\|?*\p{Cc}\p{Cf}]/gu;

/** Half of a surrogate pair with no other half: not encodable, so not a legal file name. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

export type NameKind = 'file' | 'folder';

/**
 * The legal local name for a remote name. Files keep their extension when cut; a folder has no
 * extension (`Smith Pty. Ltd` must not lose `. Ltd`). A leading dot becomes `_`: hidden names
 * are docsync's own (`.document.json`, `.docsync`), and a remote name must never land on them.
 */
export function toLocalName(remote: string, kind: NameKind = 'file'): string {
  const cleaned = remote
    .replace(LONE_SURROGATE, '_')
    .normalize('NFC')
    .replace(ILLEGAL, '_')
    .replace(/^\s+/u, '')
    .replace(/^\./u, '_');
  const { stem, ext } = splitName(stripTrailing(cleaned), kind);
  return fitName(stem, '', ext);
}

/** Splits off the extension that truncation and collision suffixes keep. */
export function splitName(name: string, kind: NameKind): { stem: string; ext: string } {
  const match = kind === 'file' ? EXTENSION.exec(name) : null;
  if (!match || match.index === 0) return { stem: name, ext: '' };
  return { stem: name.slice(0, match.index), ext: match[0] };
}

/**
 * `stem + suffix + ext` cut to MAX_NAME_BYTES by shortening the stem only (on a character
 * boundary), then made legal again: no trailing dot or space, no reserved name, never empty.
 */
export function fitName(stem: string, suffix: string, ext: string): string {
  const room = MAX_NAME_BYTES - byteLength(suffix) - byteLength(ext);
  let cut = stripTrailing(truncateBytes(stem, Math.max(room, 1)));
  if (cut === '' || /^\.+$/u.test(cut)) cut = '_';
  if (RESERVED.test(cut + suffix + ext)) cut = cut.replace(RESERVED, '$1_');
  const name = stripTrailing(cut + suffix + ext);
  return name === '' ? '_' : name;
}

/**
 * A name for `desired` that is free among `taken`: the name itself, else ` (2)`, ` (3)`, …
 * before the extension. Compared after NFC and lower-casing, because two names differing only in
 * case are one file on NTFS and APFS. `avoid` rejects names for other reasons (e.g. ones the
 * ignore list would hide from the scanner, which would then look like deleted files).
 */
export function pickFreeName(
  desired: string,
  taken: Iterable<string>,
  options: { kind?: NameKind; avoid?: (name: string) => boolean } = {},
): string {
  const kind = options.kind ?? 'file';
  const used = new Set<string>();
  for (const name of taken) used.add(nameKey(name));
  const base = toLocalName(desired, kind);
  const form = [base, ...avoidanceVariants(base, kind)].find((c) => !options.avoid?.(c)) ?? base;
  const { stem, ext } = splitName(form, kind);
  for (let n = 1; n <= 10_000; n += 1) {
    const name = n === 1 ? form : fitName(stem, ` (${n})`, ext);
    if (!used.has(nameKey(name)) && !options.avoid?.(name)) return name;
  }
  throw new Error(`No free name for ${JSON.stringify(desired)}`);
}

/** How two names compare on a case-insensitive file system. */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** `_name`, `name_`: escapes for a name that a prefix or suffix pattern would ignore. */
function avoidanceVariants(name: string, kind: NameKind): string[] {
  const { stem, ext } = splitName(name, kind);
  return [
    fitName(`_${stem}`, '', ext),
    fitName(stem, '', `${ext}_`),
    fitName(`_${stem}`, '', `${ext}_`),
  ];
}

function stripTrailing(name: string): string {
  return name.replace(/[\s.]+$/u, '');
}

export function byteLength(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** The longest prefix of whole characters (code points) that fits in `max` UTF-8 bytes. */
function truncateBytes(text: string, max: number): string {
  let bytes = 0;
  let out = '';
  for (const char of text) {
    const size = byteLength(char);
    if (bytes + size > max) break;
    bytes += size;
    out += char;
  }
  return out;
}
