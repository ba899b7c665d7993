/**
 * The firm's status types, cached: the planner needs them to turn a status name a user typed in
 * `.document.json` (any letter case, daemon.md) into a `typeId`, and the list rarely changes.
 * `replaceAll` swaps the whole list in one transaction so a reader never sees half of it. Types
 * learnt from documents' statuses (`learn`) are added beside it, so a status keeps its name
 * while the list cannot be read; the next list read replaces them, but for those an agreed
 * status still names (`typesStillCarried`), kept after the list read.
 */
import { typesStillCarried } from '../domain/learnt-status-types.js';
import type { StatusType } from '../domain/types.js';
import type { Database } from './open-database.js';
import type { SettingsRepo } from './settings-repo.js';

export class StatusTypeRepo {
  readonly #list;
  readonly #replace;
  readonly #learn;

  constructor(
    db: Database,
    private readonly settings: SettingsRepo,
  ) {
    this.#list = db.prepare<[], StatusType>('SELECT id, name FROM status_types ORDER BY position');
    const clear = db.prepare('DELETE FROM status_types');
    const insert = db.prepare('INSERT INTO status_types (id, name, position) VALUES (?, ?, ?)');
    const carried = db
      .prepare<[], string>(
        'SELECT DISTINCT status_type_id FROM base_documents WHERE status_type_id IS NOT NULL',
      )
      .pluck();
    this.#replace = db.transaction((types: readonly StatusType[], fetchedAt: number) => {
      const kept = typesStillCarried(this.#list.all(), types, () => carried.all());
      clear.run();
      for (const [position, type] of [...types, ...kept].entries()) {
        insert.run(type.id, type.name, position);
      }
      this.settings.set('statusTypesFetchedAt', String(fetchedAt));
      this.settings.delete('statusTypesUnreadable');
    });
    const last = db
      .prepare<[], number>('SELECT COALESCE(MAX(position), -1) FROM status_types')
      .pluck();
    const add = db.prepare(
      'INSERT INTO status_types (id, name, position) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
    );
    this.#learn = db.transaction((types: readonly StatusType[]) => {
      let position = last.get() ?? -1;
      for (const type of types) add.run(type.id, type.name, ++position);
    });
  }

  /** Adds types not known yet (by id), after the others; the list read stays as it was. */
  learn(types: readonly StatusType[]): void {
    if (types.length > 0) this.#learn.immediate(types);
  }

  /** Why the list could not be read, while none ever was (null: read, or not tried). */
  unreadable(): string | null {
    return this.settings.get('statusTypesUnreadable');
  }

  markUnreadable(reason: string): void {
    this.settings.set('statusTypesUnreadable', reason);
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
