/**
 * The names daemon.md gives folders and kept copies. Each keeps its meaningful tail (the ACN, the
 * `[documentId]`, the `(conflict …)` marker, the extension) when a long name is cut, because that
 * tail is what a person or docsync recognises the item by.
 */
import { fitName, splitName, toLocalName } from './local-names.js';
import type { Entity } from './types.js';

/** `<Company name> (<ACN as 123 456 789>)`, or the bare name when the ACN is missing. */
export function companyFolderName(name: string, acn: string | null): string {
  return withTail(name, groupedNumber(acn, [3, 3, 3]));
}

/** `<Trust name> (<ABN as 12 345 678 901>)`, or `<Trust name>` when it has no ABN. */
export function trustFolderName(name: string, abn: string | null): string {
  return withTail(name, groupedNumber(abn, [2, 3, 3, 3]));
}

/** The folder name docsync gives a company or a trust it makes a folder for. */
export function entityFolderName(entity: Entity): string {
  return entity.kind === 'company'
    ? companyFolderName(entity.name, entity.number)
    : trustFolderName(entity.name, entity.abn);
}

/** `<yyyy-mm-dd> <Document name> [<documentId>]`. */
export function documentFolderName(documentDate: string, name: string, documentId: string): string {
  const id = toLocalName(documentId, 'folder');
  const date = toLocalName(documentDate, 'folder');
  const stem = `${date} ${toLocalName(name, 'folder')}`;
  return fitName(stem, ` [${id}]`, '');
}

export interface ParsedFolderName {
  /** yyyy-mm-dd when the folder name starts with a real calendar date, else null. */
  readonly date: string | null;
  readonly name: string;
}

/**
 * A folder a user created: `yyyy-mm-dd <name>` gives the date and name of the new document;
 * any other name is the document name and the date is left to the caller (today).
 */
export function parseDocumentFolderName(folder: string): ParsedFolderName {
  const trimmed = folder.normalize('NFC').trim();
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:\s+(.*))?$/su.exec(trimmed);
  if (!match || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    return { date: null, name: trimmed };
  }
  const date = `${match[1]}-${match[2]}-${match[3]}`;
  const rest = (match[4] ?? '').trim();
  return { date, name: rest === '' ? date : rest };
}

/** `<name> (local edit).<ext>`: a user's edit of a read-only system attachment. */
export function localEditName(fileName: string): string {
  return keptCopyName(fileName, ' (local edit)');
}

/**
 * Whether `fileName` is a kept edit of a system attachment (with or without a ` (2)`). Such a
 * copy stays local: daemon.md says nothing is pushed for an edited system attachment.
 */
export function isLocalEditCopy(fileName: string): boolean {
  return /\(local edit\)( \(\d+\))?(\.[^.]*)?$/.test(fileName);
}

/**
 * The system attachment `fileName` is docsync's kept edit of (`<name> (local edit).<ext>`, with a
 * ` (2)` when that name was taken), among the document's `systemFiles`; null for any other file.
 * Only such a copy stays local (rows 35, 37): a user's own file that happens to carry the marker
 * is synced like any other, since docsync made no copy of a system form by that name.
 */
export function keptEditOf(fileName: string, systemFiles: readonly string[]): string | null {
  const wanted = fileName.normalize('NFC').toLowerCase();
  for (const file of systemFiles) {
    for (const copy of new Set([localEditName(file), rawLocalEditName(file)])) {
      const lower = copy.toLowerCase();
      if (wanted === lower) return file;
      const { stem, ext } = splitName(lower, 'file');
      const numbered = wanted.slice(stem.length, wanted.length - ext.length);
      if (wanted.startsWith(stem) && wanted.endsWith(ext) && /^ \(\d+\)$/.test(numbered))
        return file;
    }
  }
  return null;
}

/** The copy's name as the planner picks it (file-names.ts), before the store makes it legal. */
function rawLocalEditName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot <= 0
    ? `${fileName} (local edit)`
    : `${fileName.slice(0, dot)} (local edit)${fileName.slice(dot)}`;
}

function keptCopyName(fileName: string, marker: string): string {
  const { stem, ext } = splitName(toLocalName(fileName), 'file');
  return fitName(stem, marker, ext);
}

function withTail(name: string, number: string | null): string {
  const stem = toLocalName(name, 'folder');
  return number === null ? stem : fitName(stem, ` (${number})`, '');
}

/**
 * Digits grouped as the registers print them. A number of the wrong length is shown as given
 * (made legal) rather than dropped, so two entities never lose the part that tells them apart.
 */
function groupedNumber(value: string | null, groups: readonly number[]): string | null {
  if (value === null || value.trim() === '') return null;
  const digits = value.replace(/\D/gu, '');
  const total = groups.reduce((sum, size) => sum + size, 0);
  if (digits.length !== total) return toLocalName(value.trim(), 'folder');
  const parts: string[] = [];
  let at = 0;
  for (const size of groups) {
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  return parts.join(' ');
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}
