/**
 * The test documents `docsync check --write` makes in the service, and how docsync knows one
 * again. Each is recorded in the state before its create is sent (state/write-proof-repo.ts),
 * with its id once the create answers, and forgotten only once it is deleted in the service. A
 * record whose proof no longer runs is a leftover: the next `check --write` or run removes the
 * document (engine/proof-leftovers.ts). A sync never pulls one into the firm's folder: it knows
 * it by the recorded id, and by its name, which no person would give a document, as a second
 * guard for a record that was lost (another state database, a crash before the record).
 */
import { assertNever } from './assert-never.js';
import { idKey } from './ids.js';
import type { OwnerRef } from './types.js';
import { entityLabel } from './words.js';

/** A proof's record: what it made (or was about to make) in the service, and who made it. */
export interface WriteProof {
  /** The test document's name, made unique by the time in it: the record's key. */
  readonly name: string;
  readonly owner: OwnerRef;
  /** The entity's name, for the line that names the leftover. */
  readonly entityName: string;
  /** Null until the create answered (a crash before then: found again by `name`). */
  readonly documentId: string | null;
  /** The process running the proof: while it lives, the proof is not a leftover. */
  readonly pid: number;
  /** Epoch ms. */
  readonly startedAt: number;
}

const PREFIX = 'docsync check ';

/** The one file a proof uploads to its test document. */
export const PROOF_FILE_NAME = 'docsync-check.bin';

/** `docsync check 2026-11-30T09:14:03.512Z`: the test document's name, from the proof's start. */
export function proofDocumentName(at: Date): string {
  return `${PREFIX}${at.toISOString()}`;
}

const PROOF_NAME = /^docsync check \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Whether `name` is one `proofDocumentName` makes. */
export function isProofDocumentName(name: string): boolean {
  return PROOF_NAME.test(name.trim());
}

/**
 * Whether a document the service lists is a proof's test document: its id is recorded, or its
 * name is one only a proof makes.
 */
export function isProofDocument(
  doc: { readonly id: string; readonly name: string },
  recordedIds: ReadonlySet<string>,
): boolean {
  return recordedIds.has(idKey(doc.id)) || isProofDocumentName(doc.name);
}

/** The recorded test documents' ids, in the normal form `isProofDocument` compares. */
export function recordedProofIds(proofs: readonly WriteProof[]): Set<string> {
  return new Set(proofs.flatMap((p) => (p.documentId === null ? [] : [idKey(p.documentId)])));
}

/**
 * A proof takes seconds; one recorded this long ago is a leftover even if a process of its pid
 * runs (the pid taken by another process since, or a record from another machine).
 */
export const PROOF_LIFETIME_MS = 60 * 60 * 1000;

/** A proof no process is running any more: its process is gone, or it is too old to be running. */
export function isLeftover(proof: WriteProof, alive: (pid: number) => boolean, now: number) {
  return now - proof.startedAt > PROOF_LIFETIME_MS || !alive(proof.pid);
}

/** What removing a leftover came to. */
export type LeftoverOutcome =
  /** Deleted in the service now. */
  | { readonly result: 'removed'; readonly proof: WriteProof; readonly documentId: string }
  /** Not in the service: never created, or deleted already. The record is forgotten. */
  | { readonly result: 'gone'; readonly proof: WriteProof }
  /** Renamed since: no longer recognisably the test document, so it is left to a person. */
  | { readonly result: 'renamed'; readonly proof: WriteProof; readonly documentId: string }
  /** Holds a file the proof did not make: someone has used it, so it is left to a person. */
  | { readonly result: 'used'; readonly proof: WriteProof; readonly documentId: string }
  /** Not removed this time (the service unreachable, say); the record stays for the next. */
  | { readonly result: 'failed'; readonly proof: WriteProof; readonly reason: string };

/** The one line an outcome is said in; null when there is nothing to say (`gone`). */
export function leftoverSentence(outcome: LeftoverOutcome): string | null {
  const { proof } = outcome;
  const where = entityLabel(proof.owner, proof.entityName);
  switch (outcome.result) {
    case 'removed':
      return `removed test document ${outcome.documentId} "${proof.name}" from ${where}: an interrupted check --write had left it there`;
    case 'renamed':
      return `test document ${outcome.documentId} in ${where}, left by an interrupted check --write, is no longer named "${proof.name}", so docsync leaves it alone: delete it in the service if no one wants it`;
    case 'used':
      return `test document ${outcome.documentId} in ${where}, left by an interrupted check --write, holds a file the check did not make, so docsync leaves it alone: delete it in the service if no one wants it`;
    case 'failed':
      return `test document ${proof.documentId ?? `"${proof.name}"`} that an interrupted check --write left in ${where} could not be removed (${outcome.reason}); the next run or check --write tries again`;
    case 'gone':
      return null;
    default:
      return assertNever(outcome);
  }
}
