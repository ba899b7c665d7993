/**
 * Records the service sent that docsync could not read whole: a company or trust that breaks
 * the contract (skipped: its documents are not synced until the service sends it right), and a
 * trust named by its id because no name could be found (synced, with a warning). Each catalogue
 * read replaces the list, so an entry lasts exactly as long as the service keeps sending it.
 *
 * A handful of rows that are replaced whole, so they live under one key of the settings table,
 * written and read through the one schema below (no migration for a list this small).
 */
import * as z from 'zod';
import type { OwnerKind } from '../domain/types.js';
import type { SettingsRepo } from './settings-repo.js';

const recordError = z.object({
  kind: z.enum(['company', 'trust']),
  /** The record's id as sent; null when it had none that could be read. */
  id: z.string().nullable(),
  /** `error`: skipped; `warning`: synced, but something was filled in. */
  level: z.enum(['error', 'warning']),
  /** What was wrong: the field, what was expected, what came instead. */
  reason: z.string(),
  firstSeenAt: z.number(),
  lastSeenAt: z.number(),
});

const recordErrors = z.array(recordError);

export type RecordError = z.output<typeof recordError>;

export type NewRecordError = Omit<RecordError, 'firstSeenAt' | 'lastSeenAt'>;

const KEY = 'recordsInError';

export class RecordErrorRepo {
  constructor(private readonly settings: Pick<SettingsRepo, 'get' | 'set' | 'delete'>) {}

  list(): RecordError[] {
    const text = this.settings.get(KEY);
    if (text === null) return [];
    const parsed = recordErrors.safeParse(JSON.parse(text));
    // Written only through `replace`; anything else is dropped rather than shown half-read.
    return parsed.success ? parsed.data : [];
  }

  /**
   * The records in error of `kinds` as just read, replacing what was known of those kinds; a
   * record in error before keeps when it was first seen. Returns the entries new since then.
   */
  replace(kinds: readonly OwnerKind[], found: readonly NewRecordError[], now: number) {
    const before = this.list();
    const key = (e: NewRecordError) => `${e.kind}:${e.id}:${e.level}:${e.reason}`;
    const known = new Map(before.map((e) => [key(e), e]));
    const kept = before.filter((e) => !kinds.includes(e.kind));
    const fresh: RecordError[] = [];
    const next = found.map((e) => {
      const previous = known.get(key(e));
      const entry = { ...e, firstSeenAt: previous?.firstSeenAt ?? now, lastSeenAt: now };
      if (!previous) fresh.push(entry);
      return entry;
    });
    const all = [...kept, ...next];
    if (all.length === 0) this.settings.delete(KEY);
    else this.settings.set(KEY, JSON.stringify(recordErrors.parse(all)));
    return fresh;
  }
}
