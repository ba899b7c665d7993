/**
 * The simulator's in-memory records. They hold what the service holds, in the simulator's own
 * shape (numbers where the service uses numbers); `views.ts` turns them into the JSON of api.md.
 */

export type OwnerKind = 'company' | 'trust';

export interface OwnerKey {
  readonly kind: OwnerKind;
  readonly id: string;
}

export interface CompanyRecord {
  readonly id: string;
  name: string;
  number: string;
  businessNumber: string | null;
  incorporationDate: string;
  annualReviewDate: string;
  registrationState: string;
  jurisdiction: string;
  registered: boolean;
  asicAgentNumber: string | null;
  annualReviewStatus: string;
  annualReviewStatusDate: string | null;
  clientNumber: string | null;
  labelIds: number[];
  superFundContactIds: number[];
}

export type TrustType = 'UNIT' | 'DISCRETIONARY' | 'HYBRID' | 'BARE';

export interface TrustRecord {
  readonly id: number;
  name: string;
  abn: string | null;
  type: TrustType;
  formedDate: string;
  jurisdiction: string;
  vestingDate: string | null;
  meetingAddressId: number | null;
  trustNameId: number | null;
}

export interface LabelRecord {
  readonly id: number;
  readonly name: string;
}

export interface StatusTypeRecord {
  readonly id: number;
  readonly name: string;
}

export interface StatusRecord {
  readonly id: number;
  readonly typeId: number;
  readonly type: string;
  readonly effectiveDate: string;
  readonly createdBy: string;
}

/**
 * Where an attachment's bytes come from. Seeded attachments are `generated`: rebuilt from their
 * key on every download, so a 100,000-document firm costs no disk and little memory. Uploads
 * are `file`s under the data directory.
 */
export type BlobSource =
  | {
      readonly kind: 'generated';
      readonly key: string;
      readonly size: number;
      readonly title: string;
    }
  | { readonly kind: 'file'; readonly path: string; readonly size: number };

export interface AttachmentRecord {
  /** Number part of the id; the id the API shows is `UA<n>` (user) or `F<n>` (system). */
  readonly n: number;
  readonly system: boolean;
  readonly name: string;
  readonly creationDate: string;
  readonly blob: BlobSource;
  /** Cached once computed (dumps); bytes never change for an attachment id. */
  sha256?: string;
}

export interface DocumentRecord {
  readonly id: number;
  readonly owner: OwnerKey;
  readonly traceNumber: string;
  name: string;
  documentDate: string;
  asicDocNumber: string | null;
  /** Microseconds since the epoch, server clock; strictly increasing across all changes. */
  updatedMicros: number;
  status: StatusRecord;
  readonly attachments: AttachmentRecord[];
}

export interface ContactRecord {
  readonly id: number;
  readonly contactType: 'People' | 'Company' | 'Other Entity' | 'Joint Member';
  readonly name: string | null;
  readonly firstName: string | null;
  readonly lastName: string | null;
  readonly email: string | null;
  readonly superFundContactIds: number[];
}

export interface RelationshipRecord {
  readonly id: number;
  readonly trustId: number;
  readonly relationshipType: string;
  readonly contactId: number | null;
  readonly companyId: string | null;
  readonly appointDate: string;
  readonly ceasedDate: string | null;
}

export interface UnitTransactionRecord {
  readonly id: number;
  readonly trustId: number;
  readonly unitholderId: number;
  readonly beneficialOwnerId: number | null;
  readonly type: 'Initial' | 'Allotment' | 'Balance';
  readonly transactionDate: string;
  readonly numberOfUnits: number;
  readonly certificateType: 'Transaction' | 'Balance' | 'None';
  readonly certificateNumber: string | null;
  readonly unitType: {
    readonly paid: number;
    readonly unpaid: number;
    readonly currency: string;
    readonly description: string;
    readonly unitClass: { readonly description: string; readonly cCode: string };
  };
}

export interface PensionAccount {
  readonly accountDescription: string;
  readonly accountPhase: string;
  readonly memberCode: string;
  readonly grossPensionPayments: number;
  readonly endDate: string | null;
  readonly reversionAccountCode: string | null;
  readonly reversionDate: string | null;
  readonly reversionaryPensionDateOfDeath: string | null;
}

export interface FundRecord {
  readonly id: number;
  readonly name: string;
  /** Per financial year: the fund's pensions. */
  readonly years: Map<number, { fundMinimum: number; pensions: FundPension[] }>;
}

export interface FundPension {
  readonly peopleId: number;
  readonly contactId: number;
  readonly accounts: PensionAccount[];
}

export function ownerKeyString(owner: OwnerKey): string {
  return `${owner.kind}:${owner.id}`;
}

export function attachmentId(attachment: AttachmentRecord): string {
  return `${attachment.system ? 'F' : 'UA'}${attachment.n}`;
}
