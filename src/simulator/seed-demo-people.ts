/**
 * The demo firm's people and everything hanging off them: contacts (one a super fund), trust
 * relationships (one ceased, shown only with history), the UNIT trust's unit transactions and
 * the fund's pension summaries (one pension reverted to a beneficiary).
 */
import type { ContactRecord, OwnerKey, RelationshipRecord } from './records.js';
import type { SimStore } from './store.js';

type ContactSeed = Omit<ContactRecord, 'id' | 'superFundContactIds'>;

const PEOPLE: ContactSeed[] = [
  {
    contactType: 'People',
    name: null,
    firstName: 'Jane',
    lastName: 'Citizen',
    email: 'jane.citizen@example.com.au',
  },
  {
    contactType: 'People',
    name: null,
    firstName: 'Minh',
    lastName: 'Nguyen',
    email: 'minh.nguyen@example.com.au',
  },
  { contactType: 'People', name: null, firstName: 'Priya', lastName: 'Patel', email: null },
  {
    contactType: 'Company',
    name: 'Harbourside Accounting Pty Ltd',
    firstName: null,
    lastName: null,
    email: 'office@harbourside.example.com.au',
  },
  {
    contactType: 'Other Entity',
    name: 'Wattle Grove Super Fund',
    firstName: null,
    lastName: null,
    email: null,
  },
  {
    contactType: 'Joint Member',
    name: 'J & M Citizen',
    firstName: null,
    lastName: null,
    email: null,
  },
];

export function seedDemoPeople(store: SimStore, owners: readonly OwnerKey[]): void {
  const ids = PEOPLE.map(() => store.nextId('contact'));
  const fundId = ids[4]!;
  PEOPLE.forEach((person, i) => {
    const superFundContactIds = i < 2 ? [fundId] : [];
    store.contacts.set(ids[i]!, { id: ids[i]!, ...person, superFundContactIds });
  });
  const companies = owners.filter((o) => o.kind === 'company').map((o) => o.id);
  const wattle = store.companies.get(companies[1]!)!;
  wattle.superFundContactIds.push(fundId);
  wattle.labelIds.push(...store.labels.keys());
  const trusts = owners.filter((o) => o.kind === 'trust').map((o) => Number(o.id));
  for (const trustId of trusts) seedRelationships(store, trustId, ids, companies[0]!);
  seedUnitTransactions(store, trusts[0]!, ids);
  seedFund(store, ids);
}

function seedRelationships(
  store: SimStore,
  trustId: number,
  contacts: number[],
  trusteeCompany: string,
): void {
  const rel = (
    relationshipType: string,
    party: { contactId: number } | { companyId: string },
    appointDate: string,
    ceasedDate: string | null = null,
  ): RelationshipRecord => ({
    id: store.nextId('relationship'),
    trustId,
    relationshipType,
    contactId: 'contactId' in party ? party.contactId : null,
    companyId: 'companyId' in party ? party.companyId : null,
    appointDate,
    ceasedDate,
  });
  store.relationships.set(trustId, [
    rel('TRUSTEE', { companyId: trusteeCompany }, '2015-07-01'),
    rel('APPOINTOR', { contactId: contacts[0]! }, '2015-07-01'),
    rel('SETTLOR', { contactId: contacts[2]! }, '2015-06-30', '2015-07-01'),
    rel('ACCOUNTANT', { contactId: contacts[3]! }, '2018-02-12'),
  ]);
}

function seedUnitTransactions(store: SimStore, trustId: number, contacts: number[]): void {
  const unitType = {
    paid: 1,
    unpaid: 0,
    currency: 'AUD',
    description: 'Ordinary units',
    unitClass: { description: 'Ordinary', cCode: 'ORD' },
  };
  const transactions = new Map();
  for (const [i, type, date, units] of [
    [0, 'Initial', '2016-07-01', 1000],
    [1, 'Allotment', '2019-03-15', 250],
  ] as const) {
    const id = store.nextId('unitTransaction');
    transactions.set(id, {
      id,
      trustId,
      unitholderId: contacts[i]!,
      beneficialOwnerId: null,
      type,
      transactionDate: date,
      numberOfUnits: units,
      certificateType: 'Transaction',
      certificateNumber: `UC-${id}`,
      unitType,
    });
  }
  store.unitTransactions.set(trustId, transactions);
}

function seedFund(store: SimStore, contacts: number[]): void {
  const id = store.nextId('fund');
  const account = (member: string, gross: number, reverted: boolean) => ({
    accountDescription: `${member} Account Based Pension`,
    accountPhase: 'Retirement',
    memberCode: member.slice(0, 3).toUpperCase(),
    grossPensionPayments: gross,
    endDate: null,
    reversionAccountCode: reverted ? 'REV-001' : null,
    reversionDate: reverted ? '2024-11-02' : null,
    reversionaryPensionDateOfDeath: reverted ? '2024-10-20' : null,
  });
  const pensions = (year: number) => [
    {
      peopleId: 7001,
      contactId: contacts[0]!,
      accounts: [account('Jane', 42_000 + year - 2024, false)],
    },
    { peopleId: 7002, contactId: contacts[1]!, accounts: [account('Minh', 18_500, year >= 2025)] },
  ];
  store.funds.set(id, {
    id,
    name: 'Wattle Grove Super Fund',
    years: new Map([
      [2024, { fundMinimum: 24_000, pensions: pensions(2024) }],
      [2025, { fundMinimum: 25_000, pensions: pensions(2025) }],
    ]),
  });
}
