/**
 * How docsync knows a test document of `check --write` again, when a proof counts as left
 * behind, and the one line each removal is said in (domain/write-proofs.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  isLeftover,
  isProofDocument,
  isProofDocumentName,
  type LeftoverOutcome,
  leftoverSentence,
  PROOF_LIFETIME_MS,
  proofDocumentName,
  recordedProofIds,
  type WriteProof,
} from '../../src/domain/write-proofs.js';

const proof: WriteProof = {
  name: 'docsync check 2026-11-30T09:14:03.512Z',
  owner: { kind: 'company', id: 'DAF66643-B000-4DF5-AB24-175A0F0CC1AA' },
  entityName: 'Harbourside Accounting Pty Ltd',
  documentId: null,
  pid: 4242,
  startedAt: 1_000_000,
};

describe('the test document a proof names', () => {
  it('is named after the moment the proof started, and only such a name is taken for one', () => {
    expect(proofDocumentName(new Date('2026-11-30T09:14:03.512Z'))).toBe(proof.name);
    expect(isProofDocumentName(proof.name)).toBe(true);
    expect(isProofDocumentName('docsync check 2026-11-30T09:14:03Z')).toBe(true);
    for (const name of [
      'docsync check',
      'docsync check notes',
      'Docsync check 2026-11-30T09:14:03.512Z',
      'docsync check 2026-11-30',
      'minutes: docsync check 2026-11-30T09:14:03.512Z',
    ])
      expect(isProofDocumentName(name), name).toBe(false);
  });

  it('is known by a recorded id in any spelling, or by its name', () => {
    const recorded = recordedProofIds([
      { ...proof, documentId: '1000024' },
      { ...proof, name: 'docsync check 2026-11-30T10:00:00.000Z', documentId: null },
    ]);
    expect(isProofDocument({ id: ' 1000024', name: 'Annual return' }, recorded)).toBe(true);
    expect(isProofDocument({ id: '1000025', name: proof.name }, recorded)).toBe(true);
    expect(isProofDocument({ id: '1000025', name: 'Annual return' }, recorded)).toBe(false);
  });
});

describe('a proof is left behind', () => {
  const alive = (pid: number) => pid === proof.pid;
  it.each([
    ['its process runs, started a minute ago', proof.pid, 60_000, false],
    ['its process is gone', 1, 60_000, true],
    ['its pid runs, but it started over an hour ago', proof.pid, PROOF_LIFETIME_MS + 1, true],
  ])('when %s: %s', (_case, pid, age, leftover) => {
    expect(isLeftover({ ...proof, pid }, alive, proof.startedAt + age)).toBe(leftover);
  });
});

describe('the line a leftover is said in', () => {
  it.each<[LeftoverOutcome, string | null]>([
    [
      { result: 'removed', proof, documentId: '1000024' },
      'removed test document 1000024 "docsync check 2026-11-30T09:14:03.512Z" from Harbourside Accounting Pty Ltd (company DAF66643-B000-4DF5-AB24-175A0F0CC1AA): an interrupted check --write had left it there',
    ],
    [
      { result: 'renamed', proof, documentId: '1000024' },
      'test document 1000024 in Harbourside Accounting Pty Ltd (company DAF66643-B000-4DF5-AB24-175A0F0CC1AA), left by an interrupted check --write, is no longer named "docsync check 2026-11-30T09:14:03.512Z", so docsync leaves it alone: delete it in the service if no one wants it',
    ],
    [
      { result: 'failed', proof, reason: 'connect ECONNREFUSED' },
      'test document "docsync check 2026-11-30T09:14:03.512Z" that an interrupted check --write left in Harbourside Accounting Pty Ltd (company DAF66643-B000-4DF5-AB24-175A0F0CC1AA) could not be removed (connect ECONNREFUSED); the next run or check --write tries again',
    ],
    [{ result: 'gone', proof }, null],
  ])('%#: %s', (outcome, line) => {
    expect(leftoverSentence(outcome)).toBe(line);
  });
});
