/**
 * Names the planner reads from or gives to folders and files: the `yyyy-mm-dd <name>` of a
 * folder a user creates, the `[id]` the daemon writes into document folder names, and the
 * conflict and local-edit copies (daemon.md "Sync rules"; docs/sync-decision-table.md).
 */
import { isIsoDate } from './timestamps.js';

/** Last segment of a `/`-separated path. */
export function baseName(path: string): string {
  const parts = path.split('/');
  return parts[parts.length - 1] ?? path;
}

/** Name and date of a document a user created as a folder; the date is today without a prefix. */
export function newDocumentFromFolder(
  folder: string,
  today: string,
): { name: string; documentDate: string } {
  const segment = baseName(folder).trim();
  const dated = /^(\d{4}-\d{2}-\d{2})\s+(.+)$/.exec(segment);
  if (dated?.[1] && dated[2] && isIsoDate(dated[1])) {
    return { name: dated[2].trim(), documentDate: dated[1] };
  }
  return { name: segment, documentDate: today };
}

/** The document id in `<date> <name> [<id>]`, the name the daemon gives document folders. */
export function documentIdInFolderName(folder: string): string | null {
  return /\[([^\]]+)\]\s*$/.exec(baseName(folder))?.[1] ?? null;
}

function splitExtension(file: string): { stem: string; ext: string } {
  const dot = file.lastIndexOf('.');
  // A leading dot (".profile") is part of the name, not an extension.
  if (dot <= 0) return { stem: file, ext: '' };
  return { stem: file.slice(0, dot), ext: file.slice(dot) };
}

/** `<name> (<tag>).<ext>` */
export function taggedName(file: string, tag: string): string {
  const { stem, ext } = splitExtension(file);
  return `${stem} (${tag})${ext}`;
}

/** `<name> (conflict yyyy-mm-dd hhmm).<ext>`: the losing side of a conflict (rows 42, 43). */
export function conflictName(file: string, stamp: string): string {
  return taggedName(file, `conflict ${stamp}`);
}

/**
 * Whether `file` is a name docsync gives a file of `original`'s name beside it: its conflict copy
 * (`<name> (conflict yyyy-mm-dd hhmm).<ext>`), or ` (2)` when the name was taken, or both;
 * compared case-insensitively, as names in a folder are.
 */
export function isCopyNameOf(file: string, original: string): boolean {
  const tag = tagOf(file, original);
  return tag !== null && tag !== '' && COPY_TAG.test(tag);
}

/** Whether `file` is a conflict copy of `original`: `isCopyNameOf` with the conflict's tag. */
export function isConflictCopyOf(file: string, original: string): boolean {
  const tag = tagOf(file, original);
  return tag !== null && CONFLICT_TAG.test(tag);
}

const COPY_TAG = /^( \(conflict \d{4}-\d{2}-\d{2} \d{4}\))?( \(\d+\))?$/;
const CONFLICT_TAG = /^ \(conflict \d{4}-\d{2}-\d{2} \d{4}\)( \(\d+\))?$/;

/** What `file` adds between `original`'s stem and extension; null when it is not of that name. */
function tagOf(file: string, original: string): string | null {
  const { stem, ext } = splitExtension(original.toLowerCase());
  const name = file.toLowerCase();
  if (name.length < stem.length + ext.length) return null;
  if (!name.startsWith(stem) || !name.endsWith(ext)) return null;
  return name.slice(stem.length, name.length - ext.length);
}

/** `<name> (local edit).<ext>`: a user's edit of a read-only system attachment (rows 35, 37). */
export function localEditName(file: string): string {
  return taggedName(file, 'local edit');
}

/**
 * A name not yet taken in a folder, compared case-insensitively (Windows and macOS folders are),
 * adding ` (2)`, ` (3)` like daemon.md's rule for colliding remote names. Records the choice.
 */
export function claimName(wanted: string, taken: Set<string>): string {
  let candidate = wanted;
  for (let n = 2; taken.has(candidate.toLowerCase()); n += 1) {
    candidate = taggedName(wanted, String(n));
  }
  taken.add(candidate.toLowerCase());
  return candidate;
}
