/**
 * The demo firm: a few Australian companies and trusts (one UNIT trust with unit transactions,
 * one trust without ABN), contacts, trust relationships, a super fund with a pension summary,
 * and documents across several statuses with user and system attachments that are real PDFs.
 */
import { abnFor, acn } from './au-numbers.js';
import { generatedBlob } from './blobs.js';
import type { SimClock } from './clock.js';
import { makeCompany, makeTrust } from './entity-factory.js';
import { seededRandom } from './random.js';
import type { OwnerKey } from './records.js';
import { addSeedAttachment, seedDocument } from './seed.js';
import { seedDemoPeople } from './seed-demo-people.js';
import type { SimStore } from './store.js';

const COMPANIES: [string, string, string][] = [
  ['Harbourside Accounting Pty Ltd', '61287463', 'NSW'],
  ['Wattle Grove Holdings Pty Ltd', '60451290', 'VIC'],
  ['Southern Cross Logistics Pty Ltd', '62731158', 'QLD'],
  ['Blue Gum Investments Pty Ltd', '60098734', 'WA'],
];

/** [name, type, the 9 digits the ABN's check digits go in front of]. */
const TRUSTS: [string, 'UNIT' | 'DISCRETIONARY' | 'HYBRID' | 'BARE', string | null][] = [
  ['Harbourside Unit Trust', 'UNIT', '824753556'],
  ['Nguyen Family Trust', 'DISCRETIONARY', '051775556'],
  ['Kookaburra Hybrid Trust', 'HYBRID', '914571673'],
  ['Smith Bare Trust', 'BARE', null],
];

/** [name, status type id, attachments as [file, system?]] per document. */
const DOCS: [string, number, [string, boolean][]][] = [
  ['Annual Company Statement', 21, [['Annual Company Statement.pdf', true]]],
  [
    'Solvency Resolution',
    2,
    [
      ['Solvency Resolution.pdf', true],
      ['Signed resolution.pdf', false],
    ],
  ],
  ['Form 484 Change to company details', 3, [['Form 484.pdf', true]]],
  ['Engagement Letter', 10, [['Engagement letter 2025.pdf', false]]],
  [
    'Trustee Minutes or Resolutions',
    12,
    [
      ['Trustee Minutes or Resolutions.pdf', true],
      ['Notes.pdf', false],
    ],
  ],
];

export function seedDemo(store: SimStore, clock: SimClock): void {
  const random = seededRandom(2020);
  const owners: OwnerKey[] = [];
  for (const [name, first8, state] of COMPANIES) {
    const number = acn(first8);
    const company = makeCompany(store, random, {
      name,
      number,
      businessNumber: abnFor(number),
      registrationState: state,
    });
    owners.push({ kind: 'company', id: company.id });
  }
  for (const [name, type, abn] of TRUSTS) {
    owners.push({
      kind: 'trust',
      id: String(makeTrust(store, random, { name, type, abn: abn && abnFor(abn) }).id),
    });
  }
  seedDemoPeople(store, owners);
  const day = 86_400_000_000;
  // From the start of today (UTC), not from this instant: two demo runs the same day see the
  // same firm, to the microsecond, so the second has nothing to sync. From the instant, every
  // time moved by the seconds between the runs, and a document near midnight changed its date.
  const today = Math.floor(clock.nowMs() / 86_400_000) * 86_400_000;
  let micros = (today - 90 * 86_400_000) * 1000 + 108_264;
  owners.forEach((owner, i) => {
    // Each entity gets 2 to 4 of the document kinds, companies the ASIC ones first.
    const count = 2 + (i % 3);
    for (let d = 0; d < count; d++) {
      const [name, typeId, files] = DOCS[(i + d) % DOCS.length]!;
      micros += day + Math.floor(random() * 3_600_000_000);
      const doc = seedDocument(store, random, owner, name, micros, typeId);
      for (const [file, system] of files) {
        addSeedAttachment(
          store,
          doc,
          file,
          generatedBlob(`demo:${doc.id}:${file}`, `${name} - ${file}`, 0),
          system,
        );
      }
    }
  });
  clock.observe(micros + 1_000_000);
}
