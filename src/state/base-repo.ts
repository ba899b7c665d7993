/**
 * The base: per document, the last state both sides agreed on (style guide §9). Attachments are
 * a JSON column rather than a child table: a document's attachments are always read and replaced
 * together with it (the base is a snapshot, never patched), a document has a handful of them, and
 * one row per document makes `put` a single atomic statement and `listByOwner` one index range
 * scan. Nothing queries attachments across documents.
 *
 * A base row must change only in the transaction that records the action's success: `put` and
 * `remove` are called by `StateStore.commitAgreed` alone (the one writer of the agreed state),
 * with the outbox completion and the cursor; they nest as savepoints inside it.
 */

import { ownerKey } from '../domain/owner-key.js';
import type { BaseAttachment, BaseDocument, OwnerKind, OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf, ownersJson } from './row-helpers.js';

interface BaseRow extends OwnerColumns {
  id: string;
  name: string;
  document_date: string;
  status_id: string | null;
  status_type_id: string | null;
  status_date: string | null;
  last_updated_timestamp: string;
  folder: string;
  attachments_json: string;
}

export class BaseRepo {
  readonly #get;
  readonly #byOwner;
  readonly #byOwners;
  readonly #put;
  readonly #remove;
  readonly #count;
  readonly #countAll;
  readonly #removeOwner;

  constructor(
    db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.#get = db.prepare<[string], BaseRow>('SELECT * FROM base_documents WHERE id = ?');
    this.#byOwner = db.prepare<[OwnerKind, string], BaseRow>(
      'SELECT * FROM base_documents WHERE owner_kind = ? AND owner_id = ?',
    );
    // One index range per owner of the JSON list, in one statement (see listByOwners).
    this.#byOwners = db.prepare<[string], BaseRow>(
      `SELECT b.* FROM json_each(?) AS o JOIN base_documents AS b
         ON b.owner_kind = o.value ->> 0 AND b.owner_id = o.value ->> 1`,
    );
    this.#put = db.prepare(
      `INSERT OR REPLACE INTO base_documents (id, owner_kind, owner_id, name, document_date,
         status_id, status_type_id, status_date, last_updated_timestamp, folder,
         attachments_json, updated_at)
       VALUES (@id, @ownerKind, @ownerId, @name, @documentDate, @statusId, @statusTypeId,
         @statusDate, @lastUpdatedTimestamp, @folder, @attachments, @updatedAt)`,
    );
    this.#remove = db.prepare('DELETE FROM base_documents WHERE id = ?');
    this.#count = db
      .prepare<[OwnerKind, string], number>(
        'SELECT count(*) FROM base_documents WHERE owner_kind = ? AND owner_id = ?',
      )
      .pluck();
    this.#countAll = db.prepare<[], number>('SELECT count(*) FROM base_documents').pluck();
    this.#removeOwner = db.prepare(
      'DELETE FROM base_documents WHERE owner_kind = ? AND owner_id = ?',
    );
  }

  get(id: string): BaseDocument | null {
    const row = this.#get.get(id);
    return row ? toDocument(row) : null;
  }

  /** Every base document of one entity, keyed by document id: the planner's `base` input. */
  listByOwner(owner: OwnerRef): Map<string, BaseDocument> {
    const byId = new Map<string, BaseDocument>();
    for (const row of this.#byOwner.iterate(owner.kind, owner.id)) {
      byId.set(row.id, toDocument(row));
    }
    return byId;
  }

  /**
   * listByOwner for several entities in one statement, keyed by `ownerKey`; every owner asked
   * has a map, empty when it has no base. A cycle plans entities in batches this way: in the
   * middle of a cycle each statement's cost is mostly its own read transaction.
   */
  listByOwners(owners: readonly OwnerRef[]): Map<string, Map<string, BaseDocument>> {
    const byOwner = new Map(owners.map((o) => [ownerKey(o), new Map<string, BaseDocument>()]));
    for (const row of this.#byOwners.iterate(ownersJson(owners))) {
      const doc = toDocument(row);
      byOwner.get(ownerKey(doc.owner))?.set(doc.id, doc);
    }
    return byOwner;
  }

  /** Replaces the document's base whole. */
  put(doc: BaseDocument): void {
    this.#put.run({
      id: doc.id,
      ownerKind: doc.owner.kind,
      ownerId: doc.owner.id,
      name: doc.name,
      documentDate: doc.documentDate,
      statusId: doc.statusId,
      statusTypeId: doc.statusTypeId,
      statusDate: doc.statusDate,
      lastUpdatedTimestamp: doc.lastUpdatedTimestamp,
      folder: doc.folder,
      attachments: JSON.stringify(doc.attachments.map(attachmentColumns)),
      updatedAt: this.now(),
    });
  }

  /** Returns whether a row was removed. */
  remove(id: string): boolean {
    return this.#remove.run(id).changes > 0;
  }

  count(owner: OwnerRef): number {
    return this.#count.get(owner.kind, owner.id) ?? 0;
  }

  /** Every document of the store: what the delete rails take their percentage of. */
  countAll(): number {
    return this.#countAll.get() ?? 0;
  }

  /** Drops every base row of an entity (the entity left the service). */
  removeOwner(owner: OwnerRef): number {
    return this.#removeOwner.run(owner.kind, owner.id).changes;
  }
}

/** Only the known fields, in a fixed order, so a stray property never lands in the database. */
function attachmentColumns(a: BaseAttachment): BaseAttachment {
  return {
    id: a.id,
    kind: a.kind,
    file: a.file,
    sha256: a.sha256,
    size: a.size,
    mtimeMs: a.mtimeMs,
  };
}

function toDocument(row: BaseRow): BaseDocument {
  return {
    id: row.id,
    owner: ownerOf(row),
    name: row.name,
    documentDate: row.document_date,
    statusId: row.status_id,
    statusTypeId: row.status_type_id,
    statusDate: row.status_date,
    lastUpdatedTimestamp: row.last_updated_timestamp,
    folder: row.folder,
    attachments: JSON.parse(row.attachments_json) as BaseAttachment[],
  };
}
