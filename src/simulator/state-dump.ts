/**
 * The whole state as plain JSON, every attachment with the sha256 of its bytes, so tests and
 * benchmarks can compare the service's side with a synced folder.
 */
import { attachmentSha256 } from './blobs.js';
import { formatMicros } from './clock.js';
import { attachmentId } from './records.js';
import type { SimStore } from './store.js';
import { companyView, contactView, relationshipView, statusView, trustView } from './views.js';

export interface DumpAttachment {
  readonly id: string;
  readonly kind: 'user' | 'system';
  readonly name: string;
  readonly creationDate: string;
  readonly size: number;
  readonly sha256: string;
}

export interface DumpDocument {
  readonly id: string;
  readonly owner: { readonly kind: 'company' | 'trust'; readonly id: string };
  readonly name: string;
  readonly documentDate: string;
  readonly traceNumber: string;
  readonly asicDocNumber: string | null;
  readonly lastUpdatedTimestamp: string;
  readonly status: ReturnType<typeof statusView>;
  readonly attachments: DumpAttachment[];
}

export interface StateDump {
  readonly companies: ReturnType<typeof companyView>[];
  /** With `name` whatever the profile: the dump is a test's view, not the service's answer. */
  readonly trusts: (ReturnType<typeof trustView> & { readonly name: string })[];
  readonly statusTypes: { id: number; name: string }[];
  readonly contacts: ReturnType<typeof contactView>[];
  readonly relationships: (ReturnType<typeof relationshipView> & { trustId: number })[];
  readonly unitTransactions: unknown[];
  readonly funds: { id: number; name: string; financialYears: number[] }[];
  readonly documents: DumpDocument[];
}

export async function dumpState(store: SimStore): Promise<StateDump> {
  const documents: DumpDocument[] = [];
  for (const doc of store.documents.values()) {
    const attachments: DumpAttachment[] = [];
    for (const a of doc.attachments) {
      attachments.push({
        id: attachmentId(a),
        kind: a.system ? 'system' : 'user',
        name: a.name,
        creationDate: a.creationDate,
        size: a.blob.size,
        sha256: await attachmentSha256(a),
      });
    }
    documents.push({
      id: String(doc.id),
      owner: { ...doc.owner },
      name: doc.name,
      documentDate: doc.documentDate,
      traceNumber: doc.traceNumber,
      asicDocNumber: doc.asicDocNumber,
      lastUpdatedTimestamp: formatMicros(doc.updatedMicros),
      status: statusView(doc.status),
      attachments,
    });
  }
  return {
    companies: [...store.companies.values()].map((c) => companyView(c, store, true)),
    trusts: [...store.trusts.values()].map((t) => ({ ...trustView(t), name: t.name })),
    statusTypes: [...store.statusTypes.values()].map((t) => ({ ...t })),
    contacts: [...store.contacts.values()].map((c) => contactView(c, true)),
    relationships: [...store.relationships.values()]
      .flat()
      .map((r) => ({ trustId: r.trustId, ...relationshipView(r, true) })),
    unitTransactions: [...store.unitTransactions.values()].flatMap((m) => [...m.values()]),
    funds: [...store.funds.values()].map((f) => ({
      id: f.id,
      name: f.name,
      financialYears: [...f.years.keys()],
    })),
    documents,
  };
}
