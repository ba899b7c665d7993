/**
 * Key/value settings (the `settings` table of migration 1). The keys docsync uses are listed in
 * `SettingKey` so a typo is a type error; typed accessors below cover the ones with a meaning.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from './open-database.js';

export type SettingKey =
  /** Service clock minus local clock, ms, from the `Date` header; for conflict times. */
  | 'clockOffsetMs'
  /** '1' once the first (pull-only) sync of the store has completed. */
  | 'initialSyncDone'
  /** A random id for this store, e.g. for idempotency keys and the status page. */
  | 'storeId'
  | 'statusTypesFetchedAt'
  /** When housekeeping (src/daemon/housekeeping.ts) last ran, epoch ms: it runs once a day. */
  | 'housekeepingAt';

export class SettingsRepo {
  readonly #get;
  readonly #set;
  readonly #delete;
  readonly #storeId;

  constructor(db: Database) {
    this.#get = db.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck();
    this.#set = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.#delete = db.prepare('DELETE FROM settings WHERE key = ?');
    const insertIfMissing = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING',
    );
    this.#storeId = db.transaction((): string => {
      insertIfMissing.run('storeId', randomUUID());
      return this.#get.get('storeId')!;
    });
  }

  get(key: SettingKey): string | null {
    return this.#get.get(key) ?? null;
  }

  set(key: SettingKey, value: string): void {
    this.#set.run(key, value);
  }

  delete(key: SettingKey): void {
    this.#delete.run(key);
  }

  clockOffsetMs(): number {
    return Number(this.get('clockOffsetMs') ?? 0);
  }

  setClockOffsetMs(offsetMs: number): void {
    this.set('clockOffsetMs', String(Math.round(offsetMs)));
  }

  initialSyncDone(): boolean {
    return this.get('initialSyncDone') === '1';
  }

  markInitialSyncDone(): void {
    this.set('initialSyncDone', '1');
  }

  /** When housekeeping last ran (epoch ms); null when it never has. */
  housekeepingAt(): number | null {
    const value = this.get('housekeepingAt');
    return value === null ? null : Number(value);
  }

  setHousekeepingAt(at: number): void {
    this.set('housekeepingAt', String(at));
  }

  /** Created on first use and never changed. */
  storeId(): string {
    return this.#storeId.immediate();
  }
}
