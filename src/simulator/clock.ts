/**
 * The simulator's clock: the real clock shifted by `clockOffsetMs`, so tests can give the
 * service a skewed clock (its `Date` header, timestamps, link expiry and webhook dates all move
 * together) and check the daemon's clock-offset correction.
 */
import { type Random, seededRandom } from './random.js';

export class SimClock {
  offsetMs: number;
  private lastMicros = 0;
  /**
   * The microseconds below the millisecond: seeded, so that under a fake `Date` (the
   * deterministic simulation) the same run hands out the same change times, and so the same
   * cursors.
   */
  private readonly fraction: Random = seededRandom(0x5eed);

  constructor(offsetMs = 0) {
    this.offsetMs = offsetMs;
  }

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  /**
   * A change timestamp in microseconds, strictly later than every one handed out before: two
   * changes in the same millisecond still order, so `updatedAfter` never hides one of them.
   */
  nextChangeMicros(): number {
    const micros = Math.max(
      this.nowMs() * 1000 + Math.floor(this.fraction() * 1000),
      this.lastMicros + 1,
    );
    this.lastMicros = micros;
    return micros;
  }

  /** Seeded records use past times; later changes must still come after them. */
  observe(micros: number): void {
    if (micros > this.lastMicros) this.lastMicros = micros;
  }

  today(): string {
    return new Date(this.nowMs()).toISOString().slice(0, 10);
  }
}

/** `2020-07-03T04:31:46.108264`: lists show microseconds, no zone (api.md). */
export function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const base = new Date(ms).toISOString().slice(0, 19);
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  return `${base}.${fraction}`;
}

/** `2020-07-03T04:31:46`: details show the same time truncated to seconds (api.md). */
export function formatSeconds(micros: number): string {
  return new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19);
}

const UPDATED_AFTER = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z?$/;

/** Parses `updatedAfter` (`yyyy-MM-ddTHH:mm:ss`, optional `Z`) to microseconds; null if bad. */
export function parseUpdatedAfter(text: string): number | null {
  const m = UPDATED_AFTER.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const ms = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
  // Date.UTC rolls 2020-02-31 over to March; the service would reject it, so do we.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== text.replace(/Z$/, '')) {
    return null;
  }
  return ms * 1000;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isDate(text: unknown): text is string {
  if (typeof text !== 'string' || !DATE.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

/** Webhook dates: `yyyy-MM-ddTHH:mm:ss.SSSZ`. */
export function formatWebhookDate(ms: number): string {
  return new Date(ms).toISOString();
}
