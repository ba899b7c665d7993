/**
 * The firm's status types, cached: the planner needs them to turn a status name a user typed in
 * `.document.json` (any letter case, daemon.md) into a `typeId`, and the list rarely changes.
 * `replaceAll` swaps the whole list in one transaction so a reader never sees half of it.
 */
import type { StatusType } from '../domain/types.js';
import type { Database } from './open-database.js';
import type { SettingsRepo } from './settings-repo.js';

export class StatusTypeRepo {
  readonly #list;
  readonly #replace;

  constructor(
    db: Database,
    private readonly settings: SettingsRepo,
  ) {
    this.#list = db.prepare<[], StatusType>('SELECT id, name FROM status_types ORDER BY position');
    const clear = db.prepare('DELETE FROM status_types');
    const insert = db.prepare('INSERT INTO status_types (id, name, position) VALUES (?, ?, ?)');
    this.#replace = db.transaction((types: readonly StatusType[], fetchedAt: number) => {
      clear.run();
      for (const [position, type] of types.entries()) {
        insert.run(type.id, type.name, position);
      }
      this.settings.set('statusTypesFetchedAt', String(fetchedAt));
    });
  }

  /** In the service's order. */
  list(): StatusType[] {
    return this.#list.all();
  }

  replaceAll(types: readonly StatusType[], fetchedAt: number = Date.now()): void {
    this.#replace.immediate(types, fetchedAt);
  }

  /** When the cache was last filled; null if never. */
  fetchedAt(): number | null {
    const value = this.settings.get('statusTypesFetchedAt');
    return value === null ? null : Number(value);
  }
}
