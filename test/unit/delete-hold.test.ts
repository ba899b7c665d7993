/**
 * The hold time of a removed folder's delete (domain/delete-hold.ts): one case per numbered
 * rule, and a test that fails when a rule is added without a case.
 */
import { describe, expect, it } from 'vitest';
import { type HoldInput, type HoldRule, holdOf } from '../../src/domain/delete-hold.js';

const NOW = 1_000_000;
const HOLD = 60_000;

const cases: readonly [string, HoldInput, number, ReturnType<typeof holdOf>][] = [
  [
    'a delete a rail held for a person stays held',
    { side: 'remote', known: { dueAt: null } },
    HOLD,
    { kind: 'held', rule: 1 },
  ],
  [
    'a service deletion held for a person stays held too',
    { side: 'local', known: { dueAt: null } },
    HOLD,
    { kind: 'held', rule: 1 },
  ],
  [
    'a service deletion is due at once',
    { side: 'local', known: undefined },
    HOLD,
    { kind: 'due', rule: 2 },
  ],
  [
    'a delete whose hold ended is due',
    { side: 'remote', known: { dueAt: NOW - 1 } },
    HOLD,
    { kind: 'due', rule: 3 },
  ],
  [
    'a delete whose hold ends now is due',
    { side: 'remote', known: { dueAt: NOW } },
    HOLD,
    { kind: 'due', rule: 3 },
  ],
  [
    'a delete in its hold waits until its end, not a new hold',
    { side: 'remote', known: { dueAt: NOW + 5 } },
    HOLD,
    { kind: 'waits', rule: 4, until: NOW + 5 },
  ],
  [
    'a folder first seen gone waits the whole hold',
    { side: 'remote', known: undefined },
    HOLD,
    { kind: 'waits', rule: 5, until: NOW + HOLD },
  ],
  [
    'with no hold, a folder first seen gone is due',
    { side: 'remote', known: undefined },
    0,
    { kind: 'due', rule: 5 },
  ],
];

describe('holdOf', () => {
  it.each(cases)('%s', (_name, input, holdMs, expected) => {
    expect(holdOf(input, NOW, holdMs)).toEqual(expected);
  });

  it('has a case for every rule', () => {
    const rules: readonly HoldRule[] = [1, 2, 3, 4, 5];
    expect([...new Set(cases.map(([, , , v]) => v.rule))].sort()).toEqual(rules);
  });
});
