/**
 * The JSON the service answers with, built from records. Kept apart from the records so the
 * quirks of api.md (number ids for trusts and documents, string ids for companies, prefixed
 * attachment ids, microseconds in lists and seconds in details) live in one place.
 */
import { formatMicros, formatSeconds } from './clock.js';
import type { SimProfile } from './profile.js';
import {
  type AttachmentRecord,
  attachmentId,
  type CompanyRecord,
  type ContactRecord,
  type DocumentRecord,
  type RelationshipRecord,
  type StatusRecord,
  type TrustRecord,
} from './records.js';
import type { SimStore } from './store.js';

export function companyView(company: CompanyRecord, store: SimStore, details: boolean) {
  const view = {
    id: company.id,
    name: company.name,
    number: company.number,
    businessNumber: company.businessNumber,
    incorporationDate: company.incorporationDate,
    annualReviewDate: company.annualReviewDate,
    registrationState: company.registrationState,
    jurisdiction: company.jurisdiction,
    registered: company.registered,
  };
  if (!details) return view;
  const labels = company.labelIds.map((id) => store.labels.get(id)?.name ?? String(id));
  const superFund = company.superFundContactIds.length > 0;
  return {
    ...view,
    details: {
      abn: company.businessNumber,
      asicAgentNumber: company.asicAgentNumber,
      annualReviewStatus: company.annualReviewStatus,
      annualReviewStatusDate: company.annualReviewStatusDate,
      clientNumber: company.clientNumber,
      labels,
      // Optional in api.md: only present when the company has super funds.
      ...(superFund ? { superFundContactIds: [...company.superFundContactIds] } : {}),
    },
  };
}

/** A trust; the public pages' examples give no `name`, only the `trustNameId` contact. */
export function trustView(trust: TrustRecord, profile: SimProfile = 'api') {
  return {
    id: trust.id,
    ...(profile === 'api' ? { name: trust.name } : {}),
    abn: trust.abn,
    type: trust.type,
    formedDate: trust.formedDate,
    jurisdiction: trust.jurisdiction,
    vestingDate: trust.vestingDate,
    meetingAddressId: trust.meetingAddressId,
    trustNameId: trust.trustNameId,
  };
}

export function statusView(status: StatusRecord) {
  return {
    id: status.id,
    createdBy: status.createdBy,
    type: status.type,
    typeId: status.typeId,
    effectiveDate: status.effectiveDate,
  };
}

export function attachmentView(attachment: AttachmentRecord) {
  return {
    id: attachmentId(attachment),
    name: attachment.name,
    creationDate: attachment.creationDate,
  };
}

function documentFields(doc: DocumentRecord, timestamp: string) {
  return {
    id: doc.id,
    traceNumber: doc.traceNumber,
    name: doc.name,
    documentDate: doc.documentDate,
    asicDocNumber: doc.asicDocNumber,
    lastUpdatedTimestamp: timestamp,
    status: statusView(doc.status),
  };
}

export function documentListItem(doc: DocumentRecord) {
  return documentFields(doc, formatMicros(doc.updatedMicros));
}

/** Details; the public company example carries no `lastUpdatedTimestamp` (its list item does). */
export function documentDetails(doc: DocumentRecord, profile: SimProfile = 'api') {
  const { lastUpdatedTimestamp, ...fields } = documentFields(doc, formatSeconds(doc.updatedMicros));
  const untimed = profile === 'public-docs' && doc.owner.kind === 'company';
  return {
    ...fields,
    ...(untimed ? {} : { lastUpdatedTimestamp }),
    attachments: doc.attachments.map(attachmentView),
  };
}

/**
 * An item of the `unlodged` lists in the service's public shape: no `lastUpdatedTimestamp`,
 * the company as an object, and the lodgement's details. `webUrl` is where the simulator's
 * stand-in web page is, for `lodgementURL`.
 */
export function unlodgedItem(doc: DocumentRecord, company: CompanyRecord, webUrl: string) {
  return {
    id: doc.id,
    traceNumber: doc.traceNumber,
    asicDocNumber: doc.asicDocNumber,
    name: doc.name,
    documentDate: doc.documentDate,
    lodgementDetails: {
      lodgementDeadlineDate: addDays(doc.documentDate, LODGEMENT_DAYS),
      preparedBy: doc.status.createdBy,
      // The service shows a summary for form 484 only.
      changesSummary: /484/.test(doc.name) ? 'Change to company details' : '',
      lodgementURL: `${webUrl}/s/html/main.html#/company/documents?cid=${company.id}`,
      electronic: true,
    },
    status: statusView(doc.status),
    company: {
      id: company.id,
      name: company.name,
      number: company.number,
      incorporationDate: company.incorporationDate,
      annualReviewDate: company.annualReviewDate,
      registrationState: company.registrationState,
      jurisdiction: company.jurisdiction,
    },
  };
}

/** ASIC's late date: most changes are due 28 days after they happen. */
const LODGEMENT_DAYS = 28;

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function contactView(contact: ContactRecord, details: boolean) {
  const view = {
    id: contact.id,
    contactType: contact.contactType,
    ...(contact.name !== null
      ? { name: contact.name }
      : { firstName: contact.firstName, lastName: contact.lastName }),
    email: contact.email,
  };
  return details ? { ...view, superFundContactIds: [...contact.superFundContactIds] } : view;
}

export function relationshipView(relationship: RelationshipRecord, includeHistory: boolean) {
  return {
    id: relationship.id,
    relationshipType: relationship.relationshipType,
    ...(relationship.contactId !== null
      ? { contactId: relationship.contactId }
      : { companyId: relationship.companyId }),
    appointDate: relationship.appointDate,
    ...(includeHistory ? { ceasedDate: relationship.ceasedDate } : {}),
  };
}
