/**
 * Orders the service's `lastUpdatedTimestamp` strings, which come with varying precision and no
 * zone (`2020-07-03T04:31:46.108264` in lists, `2020-07-03T04:31:46` in details, api.md), and
 * sometimes with a `Z`. Plain string comparison gets `…46Z` vs `…46.1` wrong, so both are turned
 * into one fixed-width key first. Pure; the cursor repository uses it to refuse going backwards.
 */
import { StateError } from '../domain/errors.js';

const SHAPE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z?$/;

/** A fixed-width key (nanosecond padded) that sorts like the instant it names. */
export function serviceTimestampKey(timestamp: string): string {
  const match = SHAPE.exec(timestamp);
  if (!match) {
    throw new StateError(
      'BAD_SERVICE_TIMESTAMP',
      `'${timestamp}' is not a service timestamp (yyyy-MM-ddTHH:mm:ss[.ffffff], UTC).`,
    );
  }
  return `${match[1]}.${(match[2] ?? '').padEnd(9, '0')}`;
}

/** Negative, zero or positive as `a` is before, at or after `b`. */
export function compareServiceTimestamps(a: string, b: string): number {
  const ka = serviceTimestampKey(a);
  const kb = serviceTimestampKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
