/**
 * The pure parts of meeting the real service (issue 26): ids in one normal form, the webhook
 * signature's client code and date, routes per owner kind, the shapes of either reading, error
 * bodies of either shape, the transcript's two nets against secrets, and the records in error.
 */
import { describe, expect, it } from 'vitest';
import { idKey, sameId } from '../../src/domain/ids.js';
import { serviceErrorOf } from '../../src/remote/api-error.js';
import {
  expandPath,
  kindRoute,
  ROUTES,
  routeSettingProblems,
  routeTable,
} from '../../src/remote/routes.js';
import { parse } from '../../src/remote/schemas.js';
import { REMOVED, Transcript } from '../../src/remote/transcript.js';
import { servesPath } from '../../src/simulator/profile.js';
import { signWebhook } from '../../src/simulator/webhooks.js';
import { verifySignature } from '../../src/triggers/verify-signature.js';
import { useStateStore } from '../helpers/state-store.js';

describe('ids in one normal form', () => {
  it.each([
    ['8ad08a06-6555-bb32-0165-55d9ebac0003', '8ad08a066555bb32016555d9ebac0003', true],
    ['8AD08A06-6555-BB32-0165-55D9EBAC0003', '8ad08a066555bb32016555d9ebac0003', true],
    [17337, '17337', true],
    [' 17337 ', '17337', true],
    ['17337', '173370', false],
    // Dashes matter in what is not a UUID: they are part of the id.
    ['a-b', 'ab', false],
  ])('%s and %s are the same id: %s', (a, b, same) => {
    expect(sameId(a, b)).toBe(same);
  });

  it('keeps a UUID without its dashes, in lower case', () => {
    expect(idKey('8AD08A06-6555-BB32-0165-55D9EBAC0003')).toBe('8ad08a066555bb32016555d9ebac0003');
  });
});

describe('the webhook signature', () => {
  const now = Date.parse('2026-11-25T10:00:00.000Z');
  const sign = (clientCode: string, date: string) => {
    const body = Buffer.from('{"eventId":"1"}');
    const url = 'https://docsync.example/hook';
    return verifySignature({
      authorization: `${clientCode} ${date} ${signWebhook('s3cret', date, url, body.toString())}`,
      clientCode: 'FIRM1',
      secret: 's3cret',
      url,
      rawBody: body,
      nowMs: now,
    });
  };

  it.each([
    ['2026-11-25T10:00:00.123Z'],
    ['2026-11-25T10:00:00Z'],
    ['2026-11-25T10:00:00.1Z'],
    ['2026-11-25T10:00:00.123456Z'],
  ])('takes a date with any number of fraction digits: %s', (date) => {
    expect(sign('FIRM1', date)).toEqual({ ok: true });
  });

  it('takes the client code in any letter case, and judges the date by its instant', () => {
    expect(sign('firm1', '2026-11-25T10:00:00.000Z')).toEqual({ ok: true });
    expect(sign('FIRM2', '2026-11-25T10:00:00.000Z')).toMatchObject({ ok: false });
    expect(sign('FIRM1', '2026-11-25T09:54:59.999999Z')).toMatchObject({ result: 'stale-date' });
    expect(sign('FIRM1', '2026-11-25 10:00:00Z')).toMatchObject({ result: 'bad-signature' });
  });
});

describe('routes per owner kind', () => {
  it('takes a path per kind, with {owner} or the kind’s own id, and names what is wrong by key', () => {
    expect(
      routeSettingProblems('listDocuments', {
        company: '/companies/{companyId}/documents',
        trust: '/cas/{owner}/documents',
      }),
    ).toEqual([]);
    expect(
      routeSettingProblems('listDocuments', { trust: '/cas/trusts/{companyId}/documents' }),
    ).toEqual([
      {
        key: 'listDocuments.trust',
        message: expect.stringContaining('expected a path with {owner} and no {companyId}'),
      },
    ]);
    expect(routeSettingProblems('listDocuments', { fund: '/x' })).toEqual([
      { key: 'listDocuments.fund', message: 'expected "company" or "trust"' },
    ]);
    expect(routeSettingProblems('statusTypes', { company: '/x' })).toEqual([
      { key: 'statusTypes', message: 'expected a path (a string)' },
    ]);
  });

  it('calls a kind’s own path, else the found prefix on the built-in one, but assigning a status', () => {
    const table = routeTable({ documentDetails: { trust: '/t/{trustId}/d/{documentId}' } });
    const trust = { kind: 'trust', id: '20053' } as const;
    const own = kindRoute('documentDetails', table.documentDetails, 'trust', '/cas');
    expect(own).toMatchObject({ path: '/t/{trustId}/d/{documentId}', overridden: true });
    expect(expandPath(own.path, { documentId: '7' }, trust)).toBe('/t/20053/d/7');
    const found = kindRoute('documentDetails', table.documentDetails, 'company', '/cas');
    expect(found).toMatchObject({
      path: '/cas/companies/{companyId}/documents/{documentId}',
      prefixFound: true,
      setting: 'service.routes.documentDetails.company',
    });
    expect(kindRoute('assignStatus', ROUTES.assignStatus, 'company', '').path).toBe(
      '/cas/companies/{companyId}/documents/{documentId}/statuses',
    );
    expect(kindRoute('listDocuments', ROUTES.listDocuments, 'trust', null).path).toBe(
      '/trusts/{trustId}/documents',
    );
  });
});

describe('either reading of the shapes', () => {
  const owner = { kind: 'company', id: 'c1' } as const;
  it('reads a trust with only trustNameId, details without a change time, unlodged with companyId', () => {
    expect(
      parse.trust({ id: 17337, trustNameId: 568906, type: 'UNIT', abn: null }, 'r'),
    ).toMatchObject({
      id: '17337',
      name: null,
      trustNameId: '568906',
    });
    const details = parse.document(
      {
        id: 1,
        traceNumber: null,
        name: 'Minutes',
        documentDate: '2020-07-03',
        asicDocNumber: null,
        status: null,
        attachments: [],
      },
      'r',
      owner,
    );
    expect(details.lastUpdatedTimestamp).toBeNull();
    const item = { id: 5, name: 'Form 484', documentDate: '2020-07-03', companyId: 'c1' };
    expect(parse.unlodged(item, 'r')).toMatchObject({ owner, company: { id: 'c1' } });
  });

  it.each([
    [{ error: { code: 'not_found', message: 'No such document' } }],
    [{ error: 'not_found', error_description: 'No such document' }],
  ])('reads the code and message of an error body: %j', (body) => {
    expect(serviceErrorOf(body)).toEqual({ code: 'not_found', text: 'No such document' });
  });

  it('serves one prefix per document route in the public reading, both in api.md’s', () => {
    expect(servesPath('public-docs', '/trusts/{ownerId}/documents', true)).toBe(true);
    expect(servesPath('public-docs', '/trusts/{ownerId}/documents', false)).toBe(false);
    expect(servesPath('public-docs', '/companies/{ownerId}/documents', true)).toBe(false);
    expect(
      servesPath('public-docs', '/companies/{ownerId}/documents/{documentId}/statuses', true),
    ).toBe(true);
    expect(servesPath('public-docs', '/companies', true)).toBe(true);
    expect(servesPath('api', '/trusts/{ownerId}/documents', false)).toBe(true);
  });
});

describe('the transcript', () => {
  it('removes a secret wherever it shows up, by shape and by value', () => {
    const t = new Transcript();
    t.secret('client-secret-value');
    const hooks = t.hooks();
    const options = {
      method: 'POST',
      url: new URL(
        'https://api.example/oauth/token?grant_type=refresh_token&refresh_token=rt-123456',
      ),
      headers: { authorization: 'Basic abcdef', 'x-echo': 'client-secret-value' },
      body: 'client_id=me&client_secret=client-secret-value',
    };
    hooks.beforeRequest![0]!(options as never, {} as never);
    hooks.afterResponse![0]!(
      {
        request: { options },
        statusCode: 200,
        headers: { location: 'https://app.example/cb?code=oauth-code-1&state=x' },
        body: JSON.stringify({
          access_token: 'at-999999',
          note: 'echo at-999999 and client-secret-value',
          url: 'https://files.example/f/capability-777/a.pdf',
        }),
      } as never,
      (() => undefined) as never,
    );

    const text = t.render(['header'], 'done');

    for (const secret of [
      'rt-123456',
      'client-secret-value',
      'oauth-code-1',
      'at-999999',
      'capability-777',
      'abcdef',
    ])
      expect(text, secret).not.toContain(secret);
    expect(text).toContain(`authorization: Basic ${REMOVED}`);
    expect(text).toContain(`"url":"https://files.example/${REMOVED}"`);
    expect(text).toContain('grant_type=refresh_token');
  });
});

describe('the transcript of download links in other shapes', () => {
  /** One answer of `url`, as the check's client records it, rendered. */
  function rendered(url: string, answer: { status: number; headers?: object; body: string }) {
    const t = new Transcript();
    const hooks = t.hooks();
    const options = { method: 'GET', url: new URL(url), headers: {} };
    hooks.beforeRequest![0]!(options as never, {} as never);
    hooks.afterResponse![0]!(
      {
        request: { options },
        statusCode: answer.status,
        headers: answer.headers ?? {},
        body: answer.body,
      } as never,
      (() => undefined) as never,
    );
    return t.render(['header'], 'done https://files.example/f/capability-777/a.pdf');
  }
  const download = 'https://api.example/cas/trusts/1/documents/2/attachments/UA3/download';
  const link = 'https://files.example/f/capability-777/a.pdf';

  it.each([
    ['`link`', { status: 200, body: JSON.stringify({ link }) }],
    ['`href`', { status: 200, body: JSON.stringify({ href: link, expiresAt: 'soon' }) }],
    ['the answer itself', { status: 200, body: JSON.stringify(link) }],
    ['a redirect', { status: 302, headers: { location: link }, body: '' }],
  ])('keeps only the host of a link given as %s, wherever it shows up again', (_how, answer) => {
    const text = rendered(download, answer);
    expect(text).not.toContain('capability-777');
    expect(text).toContain('https://files.example');
  });
});

describe('records in error', () => {
  const stores = useStateStore();
  it('are replaced by each read of the catalogue, keeping when each was first seen', () => {
    const state = stores.open();
    const broken = { kind: 'company', id: 'c1', level: 'error', reason: 'name: required' } as const;
    expect(state.recordErrors.replace(['company', 'trust'], [broken], 1000)).toHaveLength(1);
    expect(state.recordErrors.replace(['company', 'trust'], [broken], 2000)).toEqual([]);
    expect(state.recordErrors.list()).toEqual([{ ...broken, firstSeenAt: 1000, lastSeenAt: 2000 }]);
    state.recordErrors.replace(['company', 'trust'], [], 3000);
    expect(state.recordErrors.list()).toEqual([]);
  });
});
