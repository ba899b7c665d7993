/**
 * What `docsync conflicts resolve` does to the folder, per what the conflict was about, who won
 * and what the person keeps (domain/plan-resolution.ts). The scenario tests
 * (test/scenarios/operator-conflicts.test.ts) show the next sync carrying each to the service.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConflictChoice,
  type ConflictToResolve,
  planResolution,
} from '../../src/domain/plan-resolution.js';

const F = 'Companies/Acme/2024-05-01 Minutes [7]';
const COPY = 'minutes (conflict 2024-05-01 0930).pdf';
const file = (winner: 'local' | 'remote'): ConflictToResolve => ({
  winner,
  subject: { kind: 'file', file: 'minutes.pdf' },
  folder: F,
  copy: COPY,
});

type Case = [string, ConflictToResolve, ConflictChoice, string[] | string];

const cases: Case[] = [
  ['file, service won, keep-both', file('remote'), 'keep-both', []],
  [
    'file, service won, keep-theirs: drop our copy',
    file('remote'),
    'keep-theirs',
    [`trash ${F}/${COPY}`],
  ],
  [
    'file, service won, keep-mine: our copy takes the name',
    file('remote'),
    'keep-mine',
    [`trash ${F}/minutes.pdf`, `rename ${F}/${COPY} → minutes.pdf`],
  ],
  [
    'file, folder won, keep-mine: drop their copy',
    file('local'),
    'keep-mine',
    [`trash ${F}/${COPY}`],
  ],
  [
    'file, folder won, keep-theirs: their copy takes the name',
    file('local'),
    'keep-theirs',
    [`trash ${F}/minutes.pdf`, `rename ${F}/${COPY} → minutes.pdf`],
  ],
  [
    'local edit of a removed form, keep-mine: the edit becomes an attachment',
    {
      winner: 'remote',
      subject: { kind: 'local-edit', file: 'form.pdf' },
      folder: F,
      copy: 'form (local edit).pdf',
    },
    'keep-mine',
    [`rename ${F}/form (local edit).pdf → form.pdf`],
  ],
  [
    'local edit of a removed form, keep-theirs: the edit goes',
    {
      winner: 'remote',
      subject: { kind: 'local-edit', file: 'form.pdf' },
      folder: F,
      copy: 'form (local edit).pdf',
    },
    'keep-theirs',
    [`trash ${F}/form (local edit).pdf`],
  ],
  [
    'replaced file the service removed, keep-theirs: it goes',
    { winner: 'local', subject: { kind: 'attachment', file: 'a.pdf' }, folder: F, copy: null },
    'keep-theirs',
    [`trash! ${F}/a.pdf`],
  ],
  [
    'replaced file the service removed, keep-mine: stays',
    { winner: 'local', subject: { kind: 'attachment', file: 'a.pdf' }, folder: F, copy: null },
    'keep-mine',
    [],
  ],
  [
    "status, folder won, keep-theirs: the service's status goes back",
    { winner: 'local', subject: { kind: 'status', lost: 'LODGED' }, folder: F, copy: null },
    'keep-theirs',
    [`status ${F} LODGED`],
  ],
  [
    'status, service won, keep-mine: ours is set again',
    { winner: 'remote', subject: { kind: 'status', lost: 'CANCELLED' }, folder: F, copy: null },
    'keep-mine',
    [`status ${F} CANCELLED`],
  ],
  [
    'status, keep-both: refused',
    { winner: 'remote', subject: { kind: 'status', lost: 'CANCELLED' }, folder: F, copy: null },
    'keep-both',
    'a document has one status',
  ],
  [
    'status the service never had: refused',
    { winner: 'local', subject: { kind: 'status', lost: null }, folder: F, copy: null },
    'keep-theirs',
    'no status to go back to',
  ],
  [
    'document restored from the service, keep-mine: the folder goes (deleted)',
    { winner: 'remote', subject: { kind: 'document' }, folder: F, copy: null },
    'keep-mine',
    [`trash! ${F}`],
  ],
  [
    'document created again from the folder, keep-theirs: the folder goes (deleted)',
    { winner: 'local', subject: { kind: 'document' }, folder: F, copy: null },
    'keep-theirs',
    [`trash! ${F}`],
  ],
  [
    'document, keep-both: stays',
    { winner: 'local', subject: { kind: 'document' }, folder: F, copy: null },
    'keep-both',
    [],
  ],
];

describe('planResolution', () => {
  it.each(cases)('%s', (_says, conflict, choice, expected) => {
    const plan = planResolution(conflict, choice);
    if (typeof expected === 'string') {
      expect(plan.ok).toBe(false);
      expect(plan.ok ? '' : plan.why).toContain(expected);
      return;
    }
    expect(plan.ok).toBe(true);
    const steps = plan.ok
      ? plan.steps.map((s) =>
          s.kind === 'trash'
            ? `trash${s.required ? '!' : ''} ${s.path}`
            : s.kind === 'rename'
              ? `rename ${s.path} → ${s.to}`
              : `status ${s.folder} ${s.status}`,
        )
      : [];
    expect(steps).toEqual(expected);
  });
});
