/**
 * Key/value settings (the `settings` table of migration 1). The keys docsync uses are listed in
 * `SettingKey` so a typo is a type error; typed accessors below cover the ones with a meaning.
 */
import type { OwnerKind } from '../domain/types.js';
import type { DocumentPrefix } from '../remote/document-prefixes.js';
import type { Database } from './open-database.js';

export type SettingKey =
  /** '1' once the first (pull-only) sync of the store has completed. */
  | 'initialSyncDone'
  | 'statusTypesFetchedAt'
  /**
   * Why the service's status types could not be read, while no list was ever read: status
   * pushes wait, and only a full cycle asks again (engine/catalogue.ts).
   */
  | 'statusTypesUnreadable'
  /** When housekeeping (src/daemon/housekeeping.ts) last ran, epoch ms: it runs once a day. */
  | 'housekeepingAt'
  /**
   * The service (`serviceKey` of `service.baseUrl`) the state is synced with, recorded by the
   * first `docsync run` that uses it (domain/service-identity.ts).
   */
  | 'serviceUrl'
  /** The service's records docsync could not read whole (record-errors-repo.ts), as JSON. */
  | 'recordsInError'
  /** The test documents of `check --write` not yet deleted (write-proof-repo.ts), as JSON. */
  | 'writeProofs'
  /**
   * The document routes' prefix the service answered to, per owner kind, found on first contact
   * (remote/document-prefixes.ts): '' or '/cas'.
   */
  | 'documentPrefix.company'
  | 'documentPrefix.trust';

export class SettingsRepo {
  readonly #get;
  readonly #set;
  readonly #delete;

  constructor(db: Database) {
    this.#get = db.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck();
    this.#set = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.#delete = db.prepare('DELETE FROM settings WHERE key = ?');
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

  initialSyncDone(): boolean {
    return this.get('initialSyncDone') === '1';
  }

  markInitialSyncDone(): void {
    this.set('initialSyncDone', '1');
  }

  /** The service the state is synced with; null before a run of a docsync that records it. */
  serviceUrl(): string | null {
    return this.get('serviceUrl');
  }

  recordServiceUrl(serviceKey: string): void {
    this.set('serviceUrl', serviceKey);
  }

  /** The document routes' prefix found for `kind` on first contact; null before it. */
  documentPrefix(kind: OwnerKind): DocumentPrefix | null {
    const value = this.get(`documentPrefix.${kind}`);
    return value === '' || value === '/cas' ? value : null;
  }

  recordDocumentPrefix(kind: OwnerKind, prefix: DocumentPrefix): void {
    this.set(`documentPrefix.${kind}`, prefix);
  }

  /** When housekeeping last ran (epoch ms); null when it never has. */
  housekeepingAt(): number | null {
    const value = this.get('housekeepingAt');
    return value === null ? null : Number(value);
  }

  setHousekeepingAt(at: number): void {
    this.set('housekeepingAt', String(at));
  }
}
