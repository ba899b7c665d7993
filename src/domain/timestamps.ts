/**
 * The service's timestamps and the sync cursor (api.md "Timestamps", "updatedAfter").
 *
 * `lastUpdatedTimestamp` is UTC without a zone, with microseconds in lists and whole seconds in
 * details for the same document, so text comparison is wrong ("…:46" < "…:46.108264" but it is
 * the same version). Everything here converts to epoch microseconds, which compare exactly.
 * Pure: no clock reads; callers pass "now".
 */
import { DocsyncError } from './errors.js';

const SERVICE_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z?$/;

/** Epoch microseconds of a service timestamp; throws `BAD_TIMESTAMP` for anything else. */
export function parseServiceTimestamp(text: string): number {
  const parts = SERVICE_TIMESTAMP.exec(text);
  if (!parts) throw badTimestamp(text);
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(ms);
  // Date.UTC rolls 2020-02-30 over to March; a rolled-over value is not what the service meant.
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1 || hour > 23) {
    throw badTimestamp(text);
  }
  const fraction = Number((parts[7] ?? '').padEnd(6, '0'));
  return ms * 1000 + fraction;
}

/** Negative, zero or positive like a sort comparator. */
export function compareServiceTimestamps(a: string, b: string): number {
  // The same text is the same instant: the common case (a listed document the base agrees
  // with), and parsing both cost ~10 µs per document in a quiet cycle.
  if (a === b) return 0;
  return Math.sign(parseServiceTimestamp(a) - parseServiceTimestamp(b));
}

/**
 * How the service wrote a timestamp's zone: `none` (api.md's form: UTC without a suffix), `Z`,
 * `+00:00`, `+0000` or `+00` (UTC said another way), or `offset` (another zone, converted).
 */
export type TimestampForm = 'none' | 'Z' | '+00:00' | '+0000' | '+00' | 'offset';

/** ISO 8601 in its extended form, with or without a fraction (any digits) and a zone. */
const ISO_TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A change time as the service may write it, as the form docsync keeps and compares (api.md's:
 * UTC without a zone, the fraction as sent, cut at microseconds), with the form it came in; null
 * when it is no ISO 8601 timestamp. No offset means UTC: api.md and the public examples say the
 * service's times are UTC without a suffix, and `updatedAfter` is asked in UTC. Pure.
 */
export function readServiceTimestamp(text: string): { text: string; form: TimestampForm } | null {
  const parts = ISO_TIMESTAMP.exec(text);
  if (!parts) return null;
  const [, date, time, fraction = '', zone] = parts as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  const digits = fraction.slice(0, 6);
  const utc = `${date}T${time}${digits ? `.${digits}` : ''}`;
  let micros: number;
  try {
    micros = parseServiceTimestamp(utc);
  } catch {
    return null;
  }
  const offset = zoneMinutes(zone);
  if (offset === null) return null;
  const form = zoneForm(zone, offset);
  if (offset === 0) return { text: utc, form };
  return { text: formatMicros(micros - offset * 60_000_000, digits.length), form };
}

/** Minutes east of UTC of `+10:00`, `-0530`, `+00`, `Z` or none; null for no real offset. */
function zoneMinutes(zone: string | undefined): number | null {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = zone.length === 3 ? 0 : Number(zone.slice(-2));
  if (hours > 23 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

function zoneForm(zone: string | undefined, offset: number): TimestampForm {
  if (zone === undefined) return 'none';
  if (offset !== 0) return 'offset';
  if (zone.toUpperCase() === 'Z') return 'Z';
  return zone.length === 3 ? '+00' : zone.includes(':') ? '+00:00' : '+0000';
}

/** `yyyy-MM-ddTHH:mm:ss` in UTC, with `width` digits of the fraction (none for 0). */
function formatMicros(epochMicros: number, width: number): string {
  const seconds = formatUpdatedAfter(epochMicros);
  if (width === 0) return seconds;
  const fraction = String(((epochMicros % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0');
  return `${seconds}.${fraction.slice(0, width)}`;
}

function badTimestamp(text: string): DocsyncError {
  return new DocsyncError('BAD_TIMESTAMP', `Not a service timestamp: ${JSON.stringify(text)}`);
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** `yyyy-MM-ddTHH:mm:ss` in UTC, the only shape `updatedAfter` accepts; rounds DOWN to seconds. */
export function formatUpdatedAfter(epochMicros: number): string {
  const d = new Date(Math.floor(epochMicros / 1_000_000) * 1000);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

/**
 * The `updatedAfter` value for a cursor. The filter is strictly "later than", and a document
 * at `…:46.108264` must be listed again when the cursor is `…:46.5`, so the cursor is rounded
 * down to the second and `overlapSeconds` are subtracted (for writes the service commits with
 * an earlier timestamp than one already seen). Re-listing is harmless: changes are detected by
 * content. Null cursor (never synced) means a full listing: no filter.
 */
export function updatedAfterFor(cursor: string | null, overlapSeconds: number): string | null {
  if (cursor === null) return null;
  const micros = parseServiceTimestamp(cursor) - Math.max(0, overlapSeconds) * 1_000_000;
  return formatUpdatedAfter(micros);
}

/** What happened to one listed document in a cycle. */
export interface CursorOutcome {
  /**
   * Null when neither the list nor the details said when it changed: one that failed then
   * holds the cursor where it was, since nobody can say how far it may move.
   */
  readonly lastUpdatedTimestamp: string | null;
  /** Every action planned for the document succeeded (or none was needed). */
  readonly succeeded: boolean;
}

/**
 * The next cursor: the latest `lastUpdatedTimestamp` seen, but never at or past a document
 * whose actions failed (it must be listed again), and never backwards. Kept as the service's
 * text so no precision is lost.
 */
export function cursorFor(
  previous: string | null,
  outcomes: readonly CursorOutcome[],
): string | null {
  const failedAt = outcomes
    .filter((o) => !o.succeeded)
    .map((o) =>
      o.lastUpdatedTimestamp === null
        ? Number.NEGATIVE_INFINITY
        : parseServiceTimestamp(o.lastUpdatedTimestamp),
    );
  const limit = failedAt.length > 0 ? Math.min(...failedAt) : Number.POSITIVE_INFINITY;
  let best = previous;
  let bestMicros = previous === null ? Number.NEGATIVE_INFINITY : parseServiceTimestamp(previous);
  for (const outcome of outcomes) {
    if (outcome.lastUpdatedTimestamp === null) continue;
    const micros = parseServiceTimestamp(outcome.lastUpdatedTimestamp);
    if (outcome.succeeded && micros < limit && micros > bestMicros) {
      best = outcome.lastUpdatedTimestamp;
      bestMicros = micros;
    }
  }
  return best;
}

/**
 * Service clock minus local clock, from the service's `Date` header (RFC 7231, whole seconds,
 * so the result is good to about a second). Positive: the service is ahead.
 */
export function clockOffsetMs(serverDateHeader: string, localNowMs: number): number {
  const serverMs = Date.parse(serverDateHeader);
  if (Number.isNaN(serverMs)) {
    throw new DocsyncError(
      'BAD_DATE_HEADER',
      `Not an HTTP date: ${JSON.stringify(serverDateHeader)}`,
    );
  }
  return serverMs - localNowMs;
}

/** A service timestamp as local epoch milliseconds, comparable with file mtimes. */
export function serviceTimeToLocalMs(timestamp: string, offsetMs: number): number {
  return Math.floor(parseServiceTimestamp(timestamp) / 1000) - offsetMs;
}

function shifted(epochMs: number, utcOffsetMinutes: number): Date {
  return new Date(epochMs + utcOffsetMinutes * 60_000);
}

/** `yyyy-mm-dd` of an instant in the local zone given as minutes east of UTC. */
export function localDateOf(epochMs: number, utcOffsetMinutes: number): string {
  const d = shifted(epochMs, utcOffsetMinutes);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** `yyyy-mm-dd hhmm` as used in conflict copy names (daemon.md "Sync rules"). */
export function conflictStampOf(epochMs: number, utcOffsetMinutes: number): string {
  const d = shifted(epochMs, utcOffsetMinutes);
  return `${localDateOf(epochMs, utcOffsetMinutes)} ${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
}

/** True for a real calendar date written `yyyy-mm-dd`. */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  return localDateOf(Date.parse(`${text}T00:00:00Z`), 0) === text;
}

/**
 * Details carry whole seconds, the list microseconds, for the same instant (api.md). The base
 * keeps the list's precision, so the next listing compares equal and costs no details.
 */
export function withListTimestamp<T extends { readonly lastUpdatedTimestamp: string }>(
  doc: T,
  listedAt: string | null | undefined,
): T {
  if (!listedAt || listedAt.slice(0, 19) !== doc.lastUpdatedTimestamp.slice(0, 19)) return doc;
  return { ...doc, lastUpdatedTimestamp: listedAt };
}

/** Whether a change time carries a fraction of a second (a list's does, details' may not). */
export function hasFraction(timestamp: string): boolean {
  return /^\.\d/.test(timestamp.slice(19));
}
