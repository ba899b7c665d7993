/**
 * All records of the simulated firm, in memory. Documents are indexed by id and by owner, so a
 * list, a `updatedAfter` filter or a details call costs the owner's documents, never the firm's:
 * a 100,000-document firm answers as fast as a small one. Memory rather than SQLite because
 * the simulator is a test tool that starts fresh each run; attachment bytes are generated or
 * kept in files, so records stay small (a few hundred bytes per document).
 */
import type {
  CompanyRecord,
  ContactRecord,
  DocumentRecord,
  FundRecord,
  LabelRecord,
  OwnerKey,
  RelationshipRecord,
  StatusTypeRecord,
  TrustRecord,
  UnitTransactionRecord,
} from './records.js';
import { ownerKeyString } from './records.js';
import { notFound } from './sim-error.js';

export type ChangeSubType =
  | 'newDocument'
  | 'deleteDocument'
  | 'newStatus'
  | 'newAttachment'
  | 'statusChange';

export interface ChangeEvent {
  readonly subType: ChangeSubType;
  readonly owner: OwnerKey;
  readonly documentId: number;
  readonly userId: string;
}

/** Who makes a change: the OAuth user behind a token, or a service user through the admin API. */
export interface Actor {
  readonly userId: string;
  readonly name: string;
}

type Sequence =
  | 'trust'
  | 'contact'
  | 'document'
  | 'status'
  | 'userAttachment'
  | 'systemAttachment'
  | 'relationship'
  | 'unitTransaction'
  | 'trace'
  | 'label'
  | 'fund'
  /** The contacts (Other Entity) that name trusts, apart from the people's. */
  | 'trustName';

const FIRST_IDS: Record<Sequence, number> = {
  trust: 20_000,
  contact: 30_000,
  document: 1_000_000,
  status: 5_000_000,
  userAttachment: 700_000,
  systemAttachment: 900_000,
  relationship: 40_000,
  unitTransaction: 60_000,
  trace: 100,
  label: 10,
  fund: 80_000,
  trustName: 568_900,
};

export class SimStore {
  readonly companies = new Map<string, CompanyRecord>();
  readonly trusts = new Map<number, TrustRecord>();
  readonly labels = new Map<number, LabelRecord>();
  readonly statusTypes = new Map<number, StatusTypeRecord>();
  readonly contacts = new Map<number, ContactRecord>();
  readonly relationships = new Map<number, RelationshipRecord[]>();
  readonly unitTransactions = new Map<number, Map<number, UnitTransactionRecord>>();
  readonly funds = new Map<number, FundRecord>();
  readonly documents = new Map<number, DocumentRecord>();
  /** What is sent over a company's or trust's record, by `kind:id` (admin.patchRecord). */
  readonly recordPatches = new Map<string, Readonly<Record<string, unknown>>>();
  /** Documents the next listing of their owner leaves out, once (admin.skipInNextListing). */
  readonly skipOnce = new Set<number>();
  private readonly byOwner = new Map<string, Map<number, DocumentRecord>>();
  private readonly sequences = { ...FIRST_IDS };
  private readonly listeners: ((event: ChangeEvent) => void)[] = [];

  nextId(sequence: Sequence): number {
    this.sequences[sequence] += 1;
    return this.sequences[sequence];
  }

  onChange(listener: (event: ChangeEvent) => void): void {
    this.listeners.push(listener);
  }

  emit(event: ChangeEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  addDocument(doc: DocumentRecord): void {
    this.documents.set(doc.id, doc);
    const key = ownerKeyString(doc.owner);
    let owned = this.byOwner.get(key);
    if (!owned) {
      owned = new Map();
      this.byOwner.set(key, owned);
    }
    owned.set(doc.id, doc);
  }

  removeDocument(doc: DocumentRecord): void {
    this.documents.delete(doc.id);
    this.byOwner.get(ownerKeyString(doc.owner))?.delete(doc.id);
  }

  /** The owner's documents in id order (ids grow, so insertion order is id order). */
  documentsOf(owner: OwnerKey): Iterable<DocumentRecord> {
    return this.byOwner.get(ownerKeyString(owner))?.values() ?? [];
  }

  requireCompany(id: string): CompanyRecord {
    const company = this.companies.get(id);
    if (!company) throw notFound(`No company with id ${id}`);
    return company;
  }

  requireTrust(id: string): TrustRecord {
    const trust = /^\d+$/.test(id) ? this.trusts.get(Number(id)) : undefined;
    if (!trust) throw notFound(`No trust with id ${id}`);
    return trust;
  }

  requireOwner(owner: OwnerKey): void {
    if (owner.kind === 'company') this.requireCompany(owner.id);
    else this.requireTrust(owner.id);
  }

  /** A document of this owner; another owner's document is as unknown as a missing one. */
  requireDocument(owner: OwnerKey | null, id: string): DocumentRecord {
    const doc = /^\d+$/.test(id) ? this.documents.get(Number(id)) : undefined;
    const sameOwner = !owner || (doc && ownerKeyString(doc.owner) === ownerKeyString(owner));
    if (!doc || !sameOwner) throw notFound(`No document with id ${id}`);
    return doc;
  }

  statusType(typeId: number): StatusTypeRecord | undefined {
    return this.statusTypes.get(typeId);
  }

  statusTypeByName(name: string): StatusTypeRecord | undefined {
    for (const type of this.statusTypes.values()) if (type.name === name) return type;
    return undefined;
  }
}
