/**
 * What a scan will not sync, and the sentence that tells the user why and what to do: no entry
 * of the folder is dropped without a word (`SkippedEntry`). Pure, and table-tested on its own
 * (test/unit/skip-rules.test.ts).
 */
import { keptEditReason } from '../domain/folder-notes.js';
import type { BaseAttachment, LocalFile, SkippedEntry } from '../domain/types.js';

/**
 * C0 controls, DEL and C1 controls. No field of the service holds them (a line break reached it
 * as `%0A`), Windows cannot name a file with them, and a path holding one breaks every listing.
 */
const CONTROL = /\p{Cc}/u;
const CONTROLS = /\p{Cc}/gu;
const NAMED: Readonly<Record<string, [escape: string, described: string]>> = {
  '\n': ['\\n', 'a line break'],
  '\r': ['\\r', 'a carriage return'],
  '\t': ['\\t', 'a tab'],
};

const hex = (code: number, digits: number) => code.toString(16).padStart(digits, '0');

export const SKIP_REASONS = {
  link: (what: 'file' | 'folder') =>
    `a symbolic link; docsync does not follow links: move the real ${what} here`,
  notUtf8:
    'a name that is not valid UTF-8 (made on another system or by an old program); ' +
    'rename it and docsync syncs it',
  control: (name: string) =>
    `a name with ${describeControl(name)}, which the service cannot store: rename it without it`,
  special: (kind: string) =>
    `${kind}, not a file; docsync syncs only regular files: put the file itself here`,
  /** A regular file directly in an entity folder, under `Companies/` or `Trusts/`, or at the root. */
  loose: (where: 'entity' | 'top' | 'root') =>
    `a loose file ${LOOSE_WHERE[where]}; only files inside a document folder are synced: move it into one (or into a new folder, which becomes a new document)`,
  /** A folder at the root besides docsync's own. */
  outsideFolder:
    'a folder outside Companies/ and Trusts/; only those two are synced: move what it holds into an entity folder',
  /** A folder inside a document folder. */
  subfolder:
    'a folder inside a document folder; a document holds files, not folders: move its files up into the document folder (or zip the folder)',
  /** A `(local edit)` copy docsync kept of a user's edit of a system attachment. */
  keptEdit: keptEditReason,
} as const;

const LOOSE_WHERE = {
  entity: "in a company's or trust's folder",
  top: 'beside the entity folders',
  root: 'at the top of the store',
} as const;

/**
 * Appended when the entry has the name of an agreed attachment. The scan then reports the
 * attachment as agreed: read as missing, it would be deleted in the service, though the user
 * only made it unreadable to docsync (replaced it by a link, say). Kept, it costs nothing and
 * the user is told; a real deletion is still seen once the entry is gone.
 */
const KEPT = '; until then the service keeps the attachment as last synced';

/** Whether a name holds a character the service cannot store (CONTROL). */
export function hasControlCharacter(name: string): boolean {
  return CONTROL.test(name);
}

/** `text` with control characters escaped (`\n`, `\x1b`, `\u0085`), printable on one line. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c]?.[0] ?? (code < 0x80 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`);
  });
}

/**
 * A name read as bytes: what is UTF-8 as text (control characters escaped), every other byte
 * as `\xNN`, so the user can find the file with `ls` and rename it.
 */
export function escapeBytes(raw: Uint8Array): string {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let text = '';
  let i = 0;
  while (i < raw.length) {
    // The shortest prefix that decodes is one character; a byte that starts none is escaped.
    let taken = 0;
    for (let n = 1; n <= 4 && i + n <= raw.length && taken === 0; n += 1) {
      try {
        text += decoder.decode(raw.subarray(i, i + n));
        taken = n;
      } catch {
        // Not a whole character yet (or never one): try one byte more.
      }
    }
    if (taken === 0) {
      text += `\\x${hex(raw[i]!, 2)}`;
      taken = 1;
    }
    i += taken;
  }
  return escapeControls(text);
}

/** A skipped entry; kept as the hint says (KEPT) when it has an agreed attachment's name. */
export function skippedEntry(
  path: string,
  reason: string,
  hint: BaseAttachment | undefined,
): SkippedEntry {
  return { path, reason: hint ? `${reason}${KEPT}` : reason };
}

/** The file as the base last agreed on it. */
export function fileFromHint(hint: BaseAttachment): LocalFile {
  return { name: hint.file, size: hint.size, mtimeMs: hint.mtimeMs, sha256: hint.sha256 };
}

/** What a special file is, for the user (a Dirent or Stats answers these). */
export function specialKind(entry: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
}): string {
  if (entry.isFIFO()) return 'a named pipe';
  if (entry.isSocket()) return 'a socket';
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return 'a device';
  return 'an entry of an unknown kind';
}

function describeControl(name: string): string {
  const c = CONTROL.exec(name)?.[0] ?? '';
  const code = c.charCodeAt(0);
  return NAMED[c]?.[1] ?? `a control character (U+${hex(code, 4).toUpperCase()})`;
}
