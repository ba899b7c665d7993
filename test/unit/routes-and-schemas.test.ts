import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/remote/api-error.js';
import { expandPath, ROUTES, routeLabel, routeTable } from '../../src/remote/routes.js';
import { normaliseIds, parse } from '../../src/remote/schemas.js';

const trust = { kind: 'trust', id: '20053' } as const;

describe('route table', () => {
  it('expands owners and ids, URL-encoding every value so no id can change the path', () => {
    expect(expandPath(ROUTES.assignStatus.path, { documentId: '1075468' }, trust)).toBe(
      '/cas/trusts/20053/documents/1075468/statuses',
    );
    expect(expandPath(ROUTES.listDocuments.path, {}, { kind: 'company', id: 'a1b2-c3' })).toBe(
      '/companies/a1b2-c3/documents',
    );
    expect(expandPath(ROUTES.trustDetails.path, { trustId: '../../oauth/token?x=1' })).toBe(
      '/cas/trusts/..%2F..%2Foauth%2Ftoken%3Fx%3D1',
    );
  });

  it('marks the paths this project decided itself, so they are the first suspects', () => {
    const ours = Object.entries(ROUTES)
      .filter(([, route]) => route.source === 'ours')
      .map(([name]) => name);
    expect(ours).toEqual([
      'statusTypes',
      'deleteDocument',
      'uploadAttachment',
      'attachmentLink',
      'deleteAttachment',
      'deleteUnitTransaction',
    ]);
  });
});

describe('corrected routes (service.routes)', () => {
  it('replaces only the configured paths, marked as overridden, and keeps their method', () => {
    const table = routeTable({
      attachmentLink: '/{owner}/documents/{documentId}/files/{attachmentId}',
    });
    expect(table.attachmentLink).toEqual({
      method: 'GET',
      path: '/{owner}/documents/{documentId}/files/{attachmentId}',
      source: 'ours',
      overridden: true,
    });
    expect(routeLabel(table.attachmentLink)).toBe(
      'GET /{owner}/documents/{documentId}/files/{attachmentId}',
    );
    expect(table.listDocuments).toBe(ROUTES.listDocuments);
    expect(
      expandPath(table.attachmentLink.path, { documentId: '7', attachmentId: 'F9' }, trust),
    ).toBe('/trusts/20053/documents/7/files/F9');
  });

  it('refuses a path the configuration check would have refused', () => {
    expect(() => routeTable({ documentDetails: '/{owner}/documents' })).toThrow(
      /service\.routes\.documentDetails: expected a path with \{documentId\}/,
    );
  });
});

describe('response parsing', () => {
  const item = {
    id: 1075468,
    traceNumber: 103,
    name: 'Trustee Minutes',
    documentDate: '2020-07-03',
    asicDocNumber: null,
    lastUpdatedTimestamp: '2020-07-03T04:31:46.108264',
    status: {
      id: 9,
      createdBy: 'jo',
      type: 'DOCUMENT PREPARED',
      typeId: 2,
      effectiveDate: '2020-07-03',
    },
  };

  it('normalises ids to strings and keeps both timestamp precisions as sent', () => {
    const summary = parse.documentSummary(item, 'GET /x', trust);
    expect(summary).toMatchObject({ id: '1075468', traceNumber: '103', owner: trust });
    expect(summary.status).toMatchObject({ id: '9', typeId: '2' });
    expect(summary.lastUpdatedTimestamp).toBe('2020-07-03T04:31:46.108264');
    const details = parse.document(
      {
        ...item,
        lastUpdatedTimestamp: '2020-07-03T04:31:46',
        attachments: [
          { id: 'F933170', name: 'Minutes.pdf', creationDate: '2020-07-03' },
          { id: 'UA12', name: 'Notes.docx', creationDate: '2020-07-04' },
          { id: 77, name: 'Bare.pdf' },
        ],
      },
      'GET /x',
      trust,
    );
    expect(details.attachments.map((a) => [a.id, a.kind])).toEqual([
      ['F933170', 'system'],
      ['UA12', 'user'],
      ['77', 'user'],
    ]);
  });

  it('names the field when a response breaks the contract', () => {
    const broken = { ...item, lastUpdatedTimestamp: 'yesterday', name: undefined };
    expect(() => parse.documentSummary(broken, 'GET /{owner}/documents', trust)).toThrow(ApiError);
    expect(() => parse.documentSummary(broken, 'GET /{owner}/documents', trust)).toThrow(
      /GET \/\{owner\}\/documents: response does not match the contract: name: required; lastUpdatedTimestamp: expected an ISO 8601 timestamp/,
    );
  });

  it('requires the status key every document has, while allowing it to be null', () => {
    const { status: _omitted, ...withoutStatus } = item;
    expect(() => parse.documentSummary(withoutStatus, 'GET /x', trust)).toThrow(/status: required/);
    expect(parse.documentSummary({ ...item, status: null }, 'GET /x', trust).status).toBeNull();
  });

  it('turns every id field of pass-through records into a string, at any depth', () => {
    expect(
      normaliseIds(
        {
          id: 5,
          contactType: 'People',
          details: { superFundContactIds: [1, 2] },
          pensions: [{ peopleId: 3 }],
        },
        'GET /contacts/{contactId}',
      ),
    ).toEqual({
      id: '5',
      contactType: 'People',
      details: { superFundContactIds: ['1', '2'] },
      pensions: [{ peopleId: '3' }],
    });
  });

  it('reads an unlodged item in the public shape: the owner from its company object', () => {
    const route = 'GET /cas/companies/documents/unlodged';
    const item = {
      id: 77,
      traceNumber: '12',
      asicDocNumber: '2E1234567',
      name: 'Form 484',
      documentDate: '2020-07-03',
      lodgementDetails: {
        lodgementDeadlineDate: '2020-07-31',
        preparedBy: 'Jo',
        changesSummary: 'Change of address',
        lodgementURL: 'https://app.example.com/lodge/77',
        electronic: true,
      },
      status: {
        id: 9,
        createdBy: 'Jo',
        type: 'DOCUMENT PREPARED',
        typeId: 2,
        effectiveDate: '2020-07-03',
      },
      company: {
        id: 4411,
        name: 'Acme Pty Ltd',
        number: '123456789',
        type: { companyType: 'Small Proprietary' },
      },
    };
    expect(parse.unlodged(item, route)).toEqual({
      id: '77',
      owner: { kind: 'company', id: '4411' },
      traceNumber: '12',
      asicDocNumber: '2E1234567',
      name: 'Form 484',
      documentDate: '2020-07-03',
      status: {
        id: '9',
        typeId: '2',
        type: 'DOCUMENT PREPARED',
        effectiveDate: '2020-07-03',
        createdBy: 'Jo',
      },
      lodgementDetails: item.lodgementDetails,
      company: {
        id: '4411',
        name: 'Acme Pty Ltd',
        number: '123456789',
        type: { companyType: 'Small Proprietary' },
      },
    });
    const { company: _company, ...withoutCompany } = item;
    expect(() => parse.unlodged(withoutCompany, route)).toThrow(
      /company: expected a `company` object or a `companyId`, got neither/,
    );
  });
});
