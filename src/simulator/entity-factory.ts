/**
 * Builds company and trust records from partial input, filling plausible defaults, for the
 * admin operations and the seeds.
 */
import { abnFor, acn } from './au-numbers.js';
import { digits, type Random, uuidLike } from './random.js';
import type { CompanyRecord, TrustRecord, TrustType } from './records.js';
import { SimError, unprocessable } from './sim-error.js';
import type { SimStore } from './store.js';

export interface CompanyInput {
  readonly name: string;
  readonly id?: string;
  /** ACN, 9 digits. */
  readonly number?: string;
  /** ABN, 11 digits. */
  readonly businessNumber?: string | null;
  readonly labelIds?: readonly number[];
  readonly superFundContactIds?: readonly number[];
  readonly registrationState?: string;
  readonly incorporationDate?: string;
}

export interface TrustInput {
  readonly name: string;
  readonly abn?: string | null;
  readonly type?: TrustType;
  readonly formedDate?: string;
  readonly jurisdiction?: string;
}

export function makeCompany(store: SimStore, random: Random, input: CompanyInput): CompanyRecord {
  if (!input.name) throw unprocessable('A company needs a name');
  const number = input.number ?? acn(digits(random, 8));
  if (!/^\d{9}$/.test(number)) throw unprocessable('A company number (ACN) has 9 digits');
  const state = input.registrationState ?? 'NSW';
  const id = input.id ?? uuidLike(random);
  if (store.companies.has(id))
    throw new SimError(409, 'conflict', `A company with id ${id} exists`);
  const company: CompanyRecord = {
    id,
    name: input.name,
    number,
    businessNumber: input.businessNumber === undefined ? abnFor(number) : input.businessNumber,
    incorporationDate: input.incorporationDate ?? '2012-07-01',
    annualReviewDate: '2025-07-01',
    registrationState: state,
    jurisdiction: state,
    registered: true,
    asicAgentNumber: '12345',
    annualReviewStatus: 'Not reviewed',
    annualReviewStatusDate: null,
    clientNumber: `C${digits(random, 5)}`,
    labelIds: [...(input.labelIds ?? [])],
    superFundContactIds: [...(input.superFundContactIds ?? [])],
  };
  store.companies.set(company.id, company);
  return company;
}

export function makeTrust(store: SimStore, random: Random, input: TrustInput): TrustRecord {
  if (!input.name) throw unprocessable('A trust needs a name');
  const abn = input.abn === undefined ? abnFor(digits(random, 9)) : input.abn;
  if (abn !== null && !/^\d{11}$/.test(abn)) throw unprocessable('An ABN has 11 digits');
  // The service names a trust by a contact of type Other Entity (`trustNameId`, api.md).
  const trustNameId = store.nextId('trustName');
  store.contacts.set(trustNameId, {
    id: trustNameId,
    contactType: 'Other Entity',
    name: input.name,
    firstName: null,
    lastName: null,
    email: null,
    superFundContactIds: [],
  });
  const trust: TrustRecord = {
    id: store.nextId('trust'),
    name: input.name,
    abn,
    type: input.type ?? 'DISCRETIONARY',
    formedDate: input.formedDate ?? '2015-06-30',
    jurisdiction: input.jurisdiction ?? 'NSW',
    vestingDate: '2095-06-30',
    meetingAddressId: 500 + Math.floor(random() * 100),
    trustNameId,
  };
  // Once drawn for a made-up trustNameId: still drawn, so every seed builds the firm it built.
  random();
  store.trusts.set(trust.id, trust);
  return trust;
}
