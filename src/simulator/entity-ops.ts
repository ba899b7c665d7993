/**
 * What happens to the companies and trusts themselves in the service, for tests of a world that
 * changes under a sync: an entity renamed, deleted (with its documents), or entered again under
 * a new id (its documents made again under new ids, the same names, dates, statuses and bytes),
 * and a status type taken out of the firm's catalogue. The API has no route for any of them and
 * sends no webhook: the service's own pages do these.
 */

import type { SimClock } from './clock.js';
import { clearBlobs } from './document-ops.js';
import type { DocumentRecord, OwnerKey, OwnerKind } from './records.js';
import { notFound, unprocessable } from './sim-error.js';
import type { SimStore } from './store.js';

export class EntityOps {
  constructor(
    private readonly store: SimStore,
    private readonly clock: SimClock,
  ) {}

  rename(owner: OwnerKey, name: string): void {
    if (name.trim() === '') throw unprocessable('A company or trust needs a name');
    if (owner.kind === 'company') {
      this.store.requireCompany(owner.id).name = name;
      return;
    }
    const trust = this.store.requireTrust(owner.id);
    trust.name = name;
    // The service names a trust by its Other Entity contact (api.md): that is renamed too.
    const contact =
      trust.trustNameId === null ? undefined : this.store.contacts.get(trust.trustNameId);
    if (contact) this.store.contacts.set(contact.id, { ...contact, name });
  }

  /** The entity and every document of it gone; their bytes with them. */
  delete(owner: OwnerKey): void {
    this.store.requireOwner(owner);
    for (const doc of [...this.store.documentsOf(owner)]) {
      this.store.removeDocument(doc);
      clearBlobs(doc);
    }
    this.#forget(owner);
  }

  /**
   * The same entity entered again under a new id: its record copied, its documents made again
   * under new ids (their attachments too) and the old ones gone. Returns the new owner and the
   * new documents' ids.
   */
  renumber(owner: OwnerKey): { owner: OwnerKey; documentIds: number[] } {
    const next = this.#copy(owner);
    const documentIds: number[] = [];
    for (const doc of [...this.store.documentsOf(owner)]) {
      this.store.removeDocument(doc);
      const copy: DocumentRecord = {
        ...doc,
        id: this.store.nextId('document'),
        owner: next,
        updatedMicros: this.clock.nextChangeMicros(),
        attachments: doc.attachments.map((a) => ({
          ...a,
          n: this.store.nextId(a.system ? 'systemAttachment' : 'userAttachment'),
        })),
      };
      this.store.addDocument(copy);
      documentIds.push(copy.id);
    }
    this.#forget(owner);
    return { owner: next, documentIds };
  }

  /** Out of the catalogue; documents that carry the type keep their status as it was. */
  removeStatusType(typeId: number): void {
    if (!this.store.statusTypes.delete(typeId)) throw notFound(`No status type ${typeId}`);
  }

  #copy(owner: OwnerKey): OwnerKey {
    if (owner.kind === 'company') {
      const company = this.store.requireCompany(owner.id);
      const id = freshCompanyId(this.store, company.id);
      this.store.companies.set(id, { ...company, id, labelIds: [...company.labelIds] });
      return { kind: 'company', id };
    }
    const trust = this.store.requireTrust(owner.id);
    const id = this.store.nextId('trust');
    this.store.trusts.set(id, { ...trust, id });
    return { kind: 'trust', id: String(id) };
  }

  #forget(owner: OwnerKey): void {
    const kind: OwnerKind = owner.kind;
    if (kind === 'company') this.store.companies.delete(owner.id);
    else this.store.trusts.delete(Number(owner.id));
    this.store.recordPatches.delete(`${kind}:${owner.id}`);
  }
}

/** A company id not in use, shaped as the service's (a UUID): the old one with its tail changed. */
function freshCompanyId(store: SimStore, old: string): string {
  for (let n = 1; ; n++) {
    const id = `${old.slice(0, -12)}${n.toString(16).padStart(12, '0')}`;
    if (!store.companies.has(id)) return id;
  }
}
