/** Unit transactions of UNIT trusts, and the pension summary of the fund product. */
import { isDate } from './clock.js';
import { type Route, readJson } from './http-kit.js';
import { envelope, parsePage } from './paging.js';
import type { TrustRecord, UnitTransactionRecord } from './records.js';
import { badRequest, notFound, SimError, unprocessable } from './sim-error.js';
import type { SimStore } from './store.js';

export function otherRoutes(store: SimStore): Route[] {
  return [...unitTransactionRoutes(store), pensionRoute(store)];
}

/** The transactions of a UNIT trust; any other type of trust is a 409 (api.md). */
function unitTransactionsOf(store: SimStore, trustId: string): Map<number, UnitTransactionRecord> {
  const trust: TrustRecord = store.requireTrust(trustId);
  if (trust.type !== 'UNIT') {
    const message = `Trust ${trustId} is ${trust.type}; only UNIT trusts have unit transactions`;
    throw new SimError(409, 'not_a_unit_trust', message);
  }
  let map = store.unitTransactions.get(trust.id);
  if (!map) {
    map = new Map();
    store.unitTransactions.set(trust.id, map);
  }
  return map;
}

function unitTransactionRoutes(store: SimStore): Route[] {
  return [
    {
      method: 'GET',
      template: '/trusts/{trustId}/unitTransactions',
      auth: true,
      handle: ({ params, query }) => {
        const transactions = unitTransactionsOf(store, params.trustId!);
        const page = parsePage(query);
        return {
          status: 200,
          body: envelope('unitTransactions', transactions.values(), page, transactionView),
        };
      },
    },
    {
      method: 'POST',
      template: '/trusts/{trustId}/unitTransactions',
      auth: true,
      handle: async ({ params, req }) => {
        const transactions = unitTransactionsOf(store, params.trustId!);
        const body = await readJson(req);
        const id = store.nextId('unitTransaction');
        const transaction = parseTransaction(body, id, Number(params.trustId));
        transactions.set(id, transaction);
        return { status: 201, body: transactionView(transaction) };
      },
    },
    {
      method: 'DELETE',
      template: '/trusts/{trustId}/unitTransactions/{transactionId}',
      auth: true,
      handle: ({ params }) => {
        const map = unitTransactionsOf(store, params.trustId!);
        if (!map.delete(Number(params.transactionId)))
          throw notFound(`No unit transaction ${params.transactionId}`);
        return { status: 204 };
      },
    },
  ];
}

function pensionRoute(store: SimStore): Route {
  return {
    method: 'GET',
    template: '/sf/funds/{fundId}/reports/pensionSummary',
    auth: true,
    handle: ({ params, query }) => ({
      status: 200,
      body: pensionSummary(store, params.fundId!, query),
    }),
  };
}

function pensionSummary(store: SimStore, fundId: string, query: URLSearchParams) {
  const fund = /^\d+$/.test(fundId) ? store.funds.get(Number(fundId)) : undefined;
  if (!fund) throw notFound(`No fund with id ${fundId}`);
  const yearText = query.get('financialYear') ?? '';
  if (!/^\d{4}$/.test(yearText)) throw badRequest(`financialYear must be YYYY, got "${yearText}"`);
  const year = fund.years.get(Number(yearText));
  const pensions = year?.pensions ?? [];
  const payments = pensions
    .flatMap((p) => p.accounts)
    .reduce((sum, a) => sum + a.grossPensionPayments, 0);
  return {
    financialYear: Number(yearText),
    fundId: fund.id,
    fundName: fund.name,
    fundMinimum: year?.fundMinimum ?? 0,
    fundPensionPayments: payments,
    pensions,
  };
}

/** The service's shape has no trustId: the trust is in the path. */
function transactionView({ trustId: _trustId, ...rest }: UnitTransactionRecord) {
  return rest;
}

const TYPES = ['Initial', 'Allotment', 'Balance'] as const;
const CERTIFICATES = ['Transaction', 'Balance', 'None'] as const;

function parseTransaction(
  body: Record<string, unknown>,
  id: number,
  trustId: number,
): UnitTransactionRecord {
  const integer = (v: unknown) =>
    typeof v === 'number' && Number.isInteger(v)
      ? v
      : typeof v === 'string' && /^\d+$/.test(v)
        ? Number(v)
        : null;
  const unitholderId = integer(body.unitholderId);
  if (unitholderId === null) throw unprocessable('unitholderId is required');
  const type = TYPES.find((t) => t === body.type);
  if (!type) throw unprocessable(`type must be one of ${TYPES.join(', ')}`);
  if (!isDate(body.transactionDate))
    throw unprocessable('transactionDate must be a yyyy-MM-dd date');
  if (typeof body.numberOfUnits !== 'number' || !(body.numberOfUnits > 0))
    throw unprocessable('numberOfUnits must be a positive number');
  const certificateType = CERTIFICATES.find((c) => c === (body.certificateType ?? 'None'));
  if (!certificateType)
    throw unprocessable(`certificateType must be one of ${CERTIFICATES.join(', ')}`);
  const unitType = (body.unitType ?? {}) as Record<string, unknown>;
  const unitClass = (unitType.unitClass ?? {}) as Record<string, unknown>;
  return {
    id,
    trustId,
    unitholderId,
    beneficialOwnerId: integer(body.beneficialOwnerId),
    type,
    transactionDate: body.transactionDate,
    numberOfUnits: body.numberOfUnits,
    certificateType,
    certificateNumber: typeof body.certificateNumber === 'string' ? body.certificateNumber : null,
    unitType: {
      paid: Number(unitType.paid ?? 1),
      unpaid: Number(unitType.unpaid ?? 0),
      currency: String(unitType.currency ?? 'AUD'),
      description: String(unitType.description ?? 'Ordinary units'),
      unitClass: {
        description: String(unitClass.description ?? 'Ordinary'),
        cCode: String(unitClass.cCode ?? 'ORD'),
      },
    },
  };
}
