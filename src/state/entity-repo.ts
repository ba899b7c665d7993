/**
 * Service entities (companies, trusts) and the local entity folder each one maps to. A folder is
 * linked to at most one entity (unique index), because two entities writing into one folder would
 * mix their documents. Local folders that match no entity are kept apart, in `unmatched_folders`:
 * they have no service id, and daemon.md wants them listed by `docsync status`, never uploaded.
 */
import { idKey } from '../domain/ids.js';
import type { Entity, OwnerKind, OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';

/** How the folder was tied to the entity: its `.entity.json`, a number, the name, or we made it. */
export type MatchedBy = 'entity-json' | 'number' | 'abn' | 'name' | 'created';

export interface EntityRecord {
  readonly entity: Entity;
  /** Entity folder relative to the root; null while the entity has no local folder yet. */
  readonly folder: string | null;
  readonly matchedBy: MatchedBy | null;
  readonly updatedAt: number;
}

export interface UnmatchedFolder {
  readonly folder: string;
  readonly kind: OwnerKind;
  /** Why nothing matched, for the operator (e.g. "no company with ACN 123 456 789"). */
  readonly reason: string;
  readonly seenAt: number;
}

interface EntityRow {
  kind: OwnerKind;
  id: string;
  name: string;
  number: string | null;
  business_number: string | null;
  trust_type: string | null;
  raw_json: string;
  folder: string | null;
  matched_by: MatchedBy | null;
  updated_at: number;
}

interface UnmatchedRow {
  folder: string;
  kind: OwnerKind;
  reason: string;
  seen_at: number;
}

export class EntityRepo {
  readonly #upsert;
  readonly #get;
  readonly #ids;
  readonly #list;
  readonly #folders;
  readonly #owners;
  readonly #count;
  readonly #byFolder;
  readonly #remove;
  readonly #clearUnmatched;
  readonly #addUnmatched;
  readonly #listUnmatched;
  readonly #countUnmatched;
  readonly #replaceUnmatched;

  constructor(db: Database) {
    this.#upsert = db.prepare(
      `INSERT INTO entities (kind, id, name, number, business_number, trust_type, raw_json,
         folder, matched_by, updated_at)
       VALUES (@kind, @id, @name, @number, @businessNumber, @trustType, @raw, @folder, @matchedBy,
         @updatedAt)
       ON CONFLICT (kind, id) DO UPDATE SET name = excluded.name, number = excluded.number,
         business_number = excluded.business_number, trust_type = excluded.trust_type,
         raw_json = excluded.raw_json, folder = excluded.folder, matched_by = excluded.matched_by,
         updated_at = excluded.updated_at`,
    );
    this.#get = db.prepare<[OwnerKind, string], EntityRow>(
      'SELECT * FROM entities WHERE kind = ? AND id = ?',
    );
    this.#ids = db.prepare<[], Pick<EntityRow, 'kind' | 'id'>>(
      'SELECT kind, id FROM entities ORDER BY kind, id',
    );
    this.#list = db.prepare<[], EntityRow>('SELECT * FROM entities ORDER BY kind, name, id');
    this.#folders = db.prepare<[], Pick<EntityRow, 'kind' | 'id' | 'folder'>>(
      'SELECT kind, id, folder FROM entities WHERE folder IS NOT NULL ORDER BY kind, name, id',
    );
    this.#owners = db.prepare<[], Pick<EntityRow, 'kind' | 'id' | 'folder'>>(
      'SELECT kind, id, folder FROM entities ORDER BY kind, name, id',
    );
    this.#count = db.prepare<[], number>('SELECT count(*) FROM entities').pluck();
    this.#byFolder = db.prepare<[string], EntityRow>('SELECT * FROM entities WHERE folder = ?');
    this.#remove = db.prepare('DELETE FROM entities WHERE kind = ? AND id = ?');
    this.#clearUnmatched = db.prepare('DELETE FROM unmatched_folders');
    this.#addUnmatched = db.prepare(
      'INSERT OR REPLACE INTO unmatched_folders (folder, kind, reason, seen_at) VALUES (?, ?, ?, ?)',
    );
    this.#listUnmatched = db.prepare<[], UnmatchedRow>(
      'SELECT * FROM unmatched_folders ORDER BY folder',
    );
    this.#countUnmatched = db.prepare<[], number>('SELECT count(*) FROM unmatched_folders').pluck();
    this.#replaceUnmatched = db.transaction((folders: readonly UnmatchedFolder[]) => {
      this.#clearUnmatched.run();
      for (const f of folders) this.#addUnmatched.run(f.folder, f.kind, f.reason, f.seenAt);
    });
  }

  /** Inserts or replaces the entity's record; a folder already linked elsewhere throws. */
  upsert(record: EntityRecord): void {
    const { entity } = record;
    this.#upsert.run({
      kind: entity.kind,
      id: entity.id,
      name: entity.name,
      number: entity.kind === 'company' ? entity.number : entity.abn,
      businessNumber: entity.kind === 'company' ? entity.businessNumber : null,
      trustType: entity.kind === 'trust' ? entity.type : null,
      raw: JSON.stringify(entity.raw),
      folder: record.folder,
      matchedBy: record.matchedBy,
      updatedAt: record.updatedAt,
    });
  }

  get(owner: OwnerRef): EntityRecord | null {
    const row = this.#get.get(owner.kind, owner.id);
    return row ? toRecord(row) : null;
  }

  /**
   * The entity an id from elsewhere names (a webhook's `entityId`, a link's `?entity=`): the id
   * as stored, else any spelling of it (domain/ids.ts). Companies first, as a list would be.
   */
  findById(id: string, kind?: OwnerKind): EntityRecord | null {
    const kinds: readonly OwnerKind[] = kind ? [kind] : ['company', 'trust'];
    for (const k of kinds) {
      const exact = this.#get.get(k, id);
      if (exact) return toRecord(exact);
    }
    const wanted = idKey(id);
    const hit = this.#ids.all().find((row) => kinds.includes(row.kind) && idKey(row.id) === wanted);
    return hit ? this.get(hit) : null;
  }

  list(): EntityRecord[] {
    return this.#list.all().map(toRecord);
  }

  /**
   * The entities with a folder, and their folders, without parsing what the service sent (the
   * folder scans ask every few minutes; at firm size `list` holds the loop).
   */
  folders(): { readonly owner: OwnerRef; readonly folder: string }[] {
    return this.#folders
      .all()
      .map((row) => ({ owner: { kind: row.kind, id: row.id }, folder: row.folder! }));
  }

  /**
   * Every entity's owner and folder (null: none yet), without parsing what the service sent:
   * a catalogue read asks which known entities it no longer lists.
   */
  owners(): { readonly owner: OwnerRef; readonly folder: string | null }[] {
    return this.#owners
      .all()
      .map((row) => ({ owner: { kind: row.kind, id: row.id }, folder: row.folder }));
  }

  /** How many entities are known, without reading (and parsing) their rows. */
  count(): number {
    return this.#count.get() as number;
  }

  /** The entity whose folder this is; the local store asks this when it finds a folder. */
  findByFolder(folder: string): EntityRecord | null {
    const row = this.#byFolder.get(folder);
    return row ? toRecord(row) : null;
  }

  /** Returns whether a row was removed. Use `StateStore.forgetEntity` to drop its state too. */
  remove(owner: OwnerRef): boolean {
    return this.#remove.run(owner.kind, owner.id).changes > 0;
  }

  /** Replaces the whole list in one transaction: each scan of the root finds them anew. */
  replaceUnmatchedFolders(folders: readonly UnmatchedFolder[]): void {
    this.#replaceUnmatched.immediate(folders);
  }

  countUnmatchedFolders(): number {
    return this.#countUnmatched.get()!;
  }

  listUnmatchedFolders(): UnmatchedFolder[] {
    return this.#listUnmatched
      .all()
      .map((r) => ({ folder: r.folder, kind: r.kind, reason: r.reason, seenAt: r.seen_at }));
  }
}

function toRecord(row: EntityRow): EntityRecord {
  const raw = JSON.parse(row.raw_json) as Record<string, unknown>;
  const entity: Entity =
    row.kind === 'company'
      ? {
          kind: 'company',
          id: row.id,
          name: row.name,
          number: row.number,
          businessNumber: row.business_number,
          raw,
        }
      : { kind: 'trust', id: row.id, name: row.name, abn: row.number, type: row.trust_type, raw };
  return { entity, folder: row.folder, matchedBy: row.matched_by, updatedAt: row.updated_at };
}
