/**
 * The readers of the shapes api.md leaves to us (src/remote/shapes.ts): one case per numbered
 * rule of where a list's items are and how a download link comes, then how each change time's
 * form is told apart, and the status types learnt from documents.
 */
import { describe, expect, it } from 'vitest';
import { learntStatusTypes } from '../../src/domain/learnt-status-types.js';
import { ApiError } from '../../src/remote/api-error.js';
import { ServiceShapes, timestampSeen } from '../../src/remote/service-shapes.js';
import { type ListFound, readLink, readList, redirectLink } from '../../src/remote/shapes.js';

const items = [{ id: 1 }, { id: 2 }];

describe('readList: where a list answer holds its items', () => {
  it.each<[number, string, unknown, string | undefined, ListFound, number | null]>([
    [
      1,
      'under the key service.shapes.lists names',
      { records: items, items: [] },
      'records',
      { rule: 1, key: 'records' },
      null,
    ],
    [
      2,
      "under api.md's key, even beside other lists",
      { companies: items, labels: [], total: 2 },
      undefined,
      { rule: 2, key: 'companies' },
      2,
    ],
    [3, 'the answer as a bare array', items, undefined, { rule: 3, key: null }, null],
    [
      4,
      "under the answer's only key that holds an array",
      { items, offset: 0, total: 9 },
      undefined,
      { rule: 4, key: 'items' },
      9,
    ],
  ])('rule %i: %s', (_rule, _says, body, configured, found, total) => {
    const read = readList(body, 'companies', configured);
    expect(read).toEqual({ items, total, found });
  });

  it.each<[string, unknown, string | undefined, RegExp]>([
    [
      'rule 1 names the setting when its key is not there',
      { items },
      'records',
      /^expected the list under `records` \(service\.shapes\.lists\.companies\), got an object with `items`$/,
    ],
    [
      'several lists and none named: which to name',
      { a: [], b: [] },
      undefined,
      /several lists \(`a`, `b`\): name the one to read in service\.shapes\.lists\.companies$/,
    ],
    ['no list at all', { total: 0 }, undefined, /got no list: an object with `total`$/],
    [
      'an only list that is empty: it may be anything (`errors`), so it is not taken for the list',
      { errors: [], total: 0 },
      undefined,
      /got only an empty list under `errors`: if that is the list, name it in service\.shapes\.lists\.companies$/,
    ],
    ['not an object', 'nothing', undefined, /got no list: a string of 7 characters$/],
  ])('%s', (_says, body, configured, problem) => {
    const read = readList(body, 'companies', configured);
    expect('problem' in read && read.problem).toMatch(problem);
  });

  it('takes no total that is not a count', () => {
    expect(readList({ companies: items, total: '2' }, 'companies')).toMatchObject({ total: null });
  });
});

describe('readLink: how a download link comes', () => {
  const url = 'https://files.example/f/abc/minutes.pdf';
  it.each<[number, string, unknown, string]>([
    [1, 'the answer is the link itself', url, 'string'],
    [2, '`url`, as the contract has it', { url, expiresAt: '2026-01-01T00:00:00Z' }, 'url'],
    [3, '`link`', { link: url }, 'link'],
    [4, '`href`', { href: url }, 'href'],
  ])('rule %i: %s', (_rule, _says, body, form) => {
    expect(readLink(body)).toMatchObject({ url, form });
  });

  it('rule 5: a redirect, its Location resolved against the URL that answered', () => {
    const answered = 'https://api.example/cas/companies/c1/documents/1/attachments/UA2/download';
    expect(redirectLink('/files/abc', answered)).toEqual({
      url: 'https://api.example/files/abc',
      expiresAt: null,
      form: 'redirect',
    });
    expect(redirectLink(url, answered)).toMatchObject({ url, form: 'redirect' });
  });

  it('keeps expiresAt where it is given, and takes url first when there are several', () => {
    expect(readLink({ url, href: 'https://other.example/x', expiresAt: 'soon' })).toEqual({
      url,
      expiresAt: 'soon',
      form: 'url',
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['no link key', { file: url }, /^expected `url`, `link` or `href`, got an object with `file`$/],
    [
      'a link that is no URL',
      { href: 'files/abc' },
      /^expected an absolute http\(s\) URL, got text of 9 characters that is not one$/,
    ],
    [
      'a link of another scheme',
      'ftp://files.example/a',
      /^expected an http\(s\) URL, got one of ftp:$/,
    ],
    [
      'a link key that is no string',
      { url: 7 },
      /^url: expected an absolute http\(s\) URL, got number$/,
    ],
  ])('refuses %s, saying what came', (_says, body, problem) => {
    const read = readLink(body);
    expect('problem' in read && read.problem).toMatch(problem);
  });

  it('never repeats a refused link: a relative one still carries its signature', () => {
    const signed = '/files/abc/download?X-Amz-Credential=AKIA123&X-Amz-Signature=deadbeef';
    for (const read of [
      readLink({ url: signed }),
      readLink(signed),
      redirectLink('http://[bad', 'https://api.example/x'),
      readLink(['https://files.example/a?X-Amz-Signature=deadbeef']),
    ]) {
      expect('problem' in read).toBe(true);
      expect(JSON.stringify(read)).not.toMatch(/AKIA|deadbeef|files\//);
    }
  });
});

describe('ServiceShapes: reads with the configuration, remembers what it saw', () => {
  it('throws a MALFORMED_RESPONSE naming the route, and records the rule of each list', () => {
    const shapes = new ServiceShapes({ lists: { trusts: 'data' }, uploadField: 'file' });
    expect(shapes.list({ items }, 'GET /cas/companies', 'companies').items).toEqual(items);
    const error = (() => {
      try {
        shapes.list({ trusts: items }, 'GET /cas/trusts', 'trusts');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('MALFORMED_RESPONSE');
    expect((error as ApiError).message).toMatch(
      /^GET \/cas\/trusts: response does not match the contract: expected the list under `data`/,
    );
    expect([...shapes.seen().lists]).toEqual([['GET /cas/companies', { rule: 4, key: 'items' }]]);
  });

  it('counts the change times by form, keeping the first of each', () => {
    const shapes = new ServiceShapes();
    shapes.sawTimestamp('list', { lastUpdatedTimestamp: '2020-07-03T04:31:46.108264' });
    shapes.sawTimestamp('list', { lastUpdatedTimestamp: '2020-07-03T04:31:47.5' });
    shapes.sawTimestamp('list', { id: 3 });
    expect(Object.fromEntries(shapes.seen().timestamps.get('list')!)).toEqual({
      none: { count: 2, example: '2020-07-03T04:31:46.108264' },
      missing: { count: 1, example: null },
    });
  });
});

describe('timestampSeen: the form of a change time', () => {
  it.each([
    ['2020-07-03T04:31:46.108264', 'none'],
    ['2020-07-03T04:31:46', 'none'],
    ['2020-07-03T04:31:46Z', 'Z'],
    ['2020-07-03T04:31:46.1+0000', '+0000'],
    ['2020-07-03T04:31:46+00:00', '+00:00'],
    ['2020-07-03T04:31:46+00', '+00'],
    ['2020-07-03T14:31:46+10:00', 'offset'],
    ['2020-07-02T23:31:46-0500', 'offset'],
    [undefined, 'missing'],
    [null, 'missing'],
    ['yesterday', 'unreadable'],
    [1593750706, 'unreadable'],
  ])('%s → %s', (value, form) => {
    expect(timestampSeen(value)).toBe(form);
  });
});

describe('learntStatusTypes: the types documents carry that the list lacks', () => {
  const status = (typeId: string, type: string) => ({
    id: `s${typeId}`,
    typeId,
    type,
    effectiveDate: '2020-07-03',
    createdBy: null,
  });

  it('learns each new type once, in the order first seen, and none the list has', () => {
    const known = [{ id: '2', name: 'DOCUMENT PREPARED' }];
    const statuses = [
      status('2', 'Document prepared'),
      status('3', 'SENT TO CLIENT'),
      null,
      status('3', 'SENT TO CLIENT'),
      status('10', 'RECEIVED'),
    ];
    expect(learntStatusTypes(known, statuses)).toEqual([
      { id: '3', name: 'SENT TO CLIENT' },
      { id: '10', name: 'RECEIVED' },
    ]);
  });

  it('learns no type without a name', () => {
    expect(learntStatusTypes([], [status('4', ' ')])).toEqual([]);
  });
});
