import { describe, expect, it } from 'vitest';
import { entityDeepLink } from '../../src/domain/deep-links.js';
import { findEntity } from '../../src/domain/find-entity.js';
import type { Entity } from '../../src/domain/types.js';

const trust = (id: string, name: string): Entity => ({
  kind: 'trust',
  id,
  name,
  abn: null,
  type: null,
  raw: {},
});

describe('deep links (api.md)', () => {
  it.each([
    [
      'https://app.example.com',
      { kind: 'company', id: 'c0ffee-1' },
      'https://app.example.com/s/html/main.html#/company/documents?cid=c0ffee-1',
    ],
    [
      'https://app.example.com/',
      { kind: 'trust', id: '20053' },
      'https://app.example.com/s/html/main.html#/trusts/20053/documents',
    ],
  ] as const)('%s %j', (webUrl, owner, link) => {
    expect(entityDeepLink(webUrl, owner)).toBe(link);
  });
});

describe('findEntity', () => {
  const entities = [
    trust('1', 'Smith Family Trust'),
    trust('2', 'Smith Family Trust No 2'),
    trust('3', 'Jones Trust'),
    trust('4', 'jones  trust'),
  ];

  it.each([
    ['an id', '3', 'one', ['3']],
    [
      'a whole name in another case, before names containing it',
      'SMITH family trust',
      'one',
      ['1'],
    ],
    ['a part of one name', 'no 2', 'one', ['2']],
    ['a name two entities share, spaces and case aside', 'Jones Trust', 'ambiguous', ['3', '4']],
    ['a part of several names', 'smith', 'ambiguous', ['1', '2']],
    ['nothing', 'Brown', 'none', []],
    ['an empty query', '  ', 'none', []],
  ])('finds %s', (_name, query, kind, ids) => {
    const match = findEntity(entities, query);
    expect(match.kind).toBe(kind);
    const found =
      match.kind === 'one' ? [match.entity] : match.kind === 'ambiguous' ? match.candidates : [];
    expect(found.map((e) => e.id)).toEqual(ids);
  });
});
