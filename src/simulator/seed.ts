/**
 * Seeding a firm: `'demo'` (a small realistic firm) or a generated firm of any size. Seeded
 * records are the firm's starting state: they send no webhooks, and their timestamps lie in the
 * past, before any change made afterwards.
 */
import { generatedBlob } from './blobs.js';
import type { SimClock } from './clock.js';
import { makeCompany, makeTrust } from './entity-factory.js';
import { pick, type Random, seededRandom } from './random.js';
import type { AttachmentRecord, DocumentRecord, OwnerKey } from './records.js';
import { SERVICE_NAME, STATUS_TYPES } from './seed-base.js';
import { seedDemo } from './seed-demo.js';
import type { SimStore } from './store.js';

export interface GeneratedSeed {
  readonly companies?: number;
  readonly trusts?: number;
  readonly documentsPerEntity?: number;
  readonly attachmentsPerDocument?: number;
  /** Size of each generated attachment (at least a minimal PDF). */
  readonly attachmentBytes?: number;
  /** Seed of the generator: the same numbers give the same firm, bytes included. */
  readonly seed?: number;
}

export type SeedOption = 'demo' | GeneratedSeed;

export interface SeedSummary {
  readonly companies: number;
  readonly trusts: number;
  readonly documents: number;
  readonly attachments: number;
}

export function seedFirm(store: SimStore, clock: SimClock, seed: SeedOption): SeedSummary {
  const before = summary(store);
  if (seed === 'demo') seedDemo(store, clock);
  else seedGenerated(store, clock, seed);
  const after = summary(store);
  return {
    companies: after.companies - before.companies,
    trusts: after.trusts - before.trusts,
    documents: after.documents - before.documents,
    attachments: after.attachments - before.attachments,
  };
}

function summary(store: SimStore): SeedSummary {
  let attachments = 0;
  for (const doc of store.documents.values()) attachments += doc.attachments.length;
  return {
    companies: store.companies.size,
    trusts: store.trusts.size,
    documents: store.documents.size,
    attachments,
  };
}

const DOC_NAMES = [
  'Annual Company Statement',
  'Trustee Minutes or Resolutions',
  'Form 484 Change to company details',
  'Solvency Resolution',
  'Financial Statements',
  'Deed of Variation',
  'Unit Certificate',
  'Engagement Letter',
];

function seedGenerated(store: SimStore, clock: SimClock, options: GeneratedSeed): void {
  const random = seededRandom(options.seed ?? 42);
  const owners: OwnerKey[] = [];
  for (let i = 0; i < (options.companies ?? 10); i++) {
    const company = makeCompany(store, random, { name: `Generated ${i + 1} Pty Ltd` });
    owners.push({ kind: 'company', id: company.id });
  }
  for (let i = 0; i < (options.trusts ?? 10); i++) {
    const trust = makeTrust(store, random, { name: `Generated ${i + 1} Family Trust` });
    owners.push({ kind: 'trust', id: String(trust.id) });
  }
  const perEntity = options.documentsPerEntity ?? 10;
  const total = owners.length * perEntity;
  // Spread the documents over the past year, oldest first, all before "now".
  const start = (clock.nowMs() - 365 * 86_400_000) * 1000;
  const step = Math.floor((365 * 86_400_000 * 1000) / Math.max(total, 1));
  let k = 0;
  for (const owner of owners) {
    for (let d = 0; d < perEntity; d++, k++) {
      const name = pick(random, DOC_NAMES);
      const micros = start + k * step + Math.floor(random() * Math.min(step, 1_000_000));
      const doc = seedDocument(store, random, owner, name, micros);
      for (let a = 0; a < (options.attachmentsPerDocument ?? 2); a++) {
        const system = a === 0 && random() < 0.5;
        const file = `${name}${a === 0 ? '' : ` ${a + 1}`}.pdf`;
        const blob = generatedBlob(
          `${options.seed ?? 42}:${doc.id}:${a}`,
          file,
          options.attachmentBytes ?? 0,
        );
        addSeedAttachment(store, doc, file, blob, system);
      }
    }
  }
  clock.observe(start + total * step + 1_000_000);
}

export function seedDocument(
  store: SimStore,
  random: Random,
  owner: OwnerKey,
  name: string,
  micros: number,
  typeId?: number,
): DocumentRecord {
  const [statusTypeId, type] =
    typeId !== undefined ? [typeId, store.statusType(typeId)!.name] : pick(random, STATUS_TYPES);
  const date = new Date(Math.floor(micros / 1000)).toISOString().slice(0, 10);
  const doc: DocumentRecord = {
    id: store.nextId('document'),
    owner,
    traceNumber: String(store.nextId('trace')),
    name,
    documentDate: date,
    asicDocNumber:
      owner.kind === 'company' && random() < 0.3 ? `2E${Math.floor(random() * 1e7)}` : null,
    updatedMicros: micros,
    status: {
      id: store.nextId('status'),
      typeId: statusTypeId,
      type,
      effectiveDate: date,
      createdBy: SERVICE_NAME,
    },
    attachments: [],
  };
  store.addDocument(doc);
  return doc;
}

export function addSeedAttachment(
  store: SimStore,
  doc: DocumentRecord,
  name: string,
  blob: AttachmentRecord['blob'],
  system: boolean,
): void {
  const creationDate = doc.documentDate;
  doc.attachments.push({
    n: store.nextId(system ? 'systemAttachment' : 'userAttachment'),
    system,
    name,
    creationDate,
    blob,
  });
}
