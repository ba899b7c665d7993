/**
 * Removes what an interrupted `docsync check --write` left in the service: its test document,
 * found by the id recorded when the create answered, or, when the proof stopped before that, by
 * the name recorded before the create was sent (domain/write-proofs.ts). The next
 * `check --write` calls this first, and a sync over every entity (`run --once`, the daemon's
 * catch-up at its start and its full rounds) before it reads the catalogue; each removal is
 * one line.
 *
 * The document is deleted without a copy in `.docsync/trash/`: it holds nothing of the firm's,
 * only what the proof made (its name, a file of random bytes), and it is deleted only while it
 * is recognisably that: in the recorded entity, with the recorded id or name, still named as
 * the proof named it, and holding no file but the proof's. One renamed or used since is left to
 * a person. A proof still running (its process
 * alive) is not touched.
 */
import { DocsyncError, RunStoppedError } from '../domain/errors.js';
import { ownerKey } from '../domain/owner-key.js';
import {
  isLeftover,
  type LeftoverOutcome,
  leftoverSentence,
  PROOF_FILE_NAME,
  type WriteProof,
} from '../domain/write-proofs.js';
import type { Logger } from '../log/create-logger.js';
import { ApiError } from '../remote/api-error.js';
import type { RemoteStore } from '../remote/remote-store.js';
import type { WriteProofRepo } from '../state/write-proof-repo.js';
import type { EngineDeps } from './engine-deps.js';

export interface ProofLeftoverDeps {
  readonly remote: Pick<RemoteStore, 'documents' | 'document' | 'deleteDocument'>;
  readonly proofs: Pick<WriteProofRepo, 'list' | 'finish'>;
  readonly now: () => number;
  /** Whether a process of this id runs (`processAlive`; a test stands in). */
  readonly alive?: (pid: number) => boolean;
}

/**
 * A sync's part: the leftovers removed, each said in one warning (an interrupted proof is worth
 * an operator's look); nothing at all when no proof is recorded.
 */
export async function settleProofLeftovers(deps: EngineDeps, log: Logger): Promise<void> {
  const outcomes = await removeProofLeftovers({
    remote: deps.remote,
    proofs: deps.state.writeProofs,
    now: deps.now,
  });
  for (const outcome of outcomes) {
    const sentence = leftoverSentence(outcome);
    const documentId = 'documentId' in outcome ? outcome.documentId : outcome.proof.documentId;
    if (sentence) log.warn({ owner: ownerKey(outcome.proof.owner), documentId }, sentence);
  }
}

/** Each leftover proof's document removed, where it can be; what became of each. */
export async function removeProofLeftovers(deps: ProofLeftoverDeps): Promise<LeftoverOutcome[]> {
  const alive = deps.alive ?? processAlive;
  const outcomes: LeftoverOutcome[] = [];
  for (const proof of deps.proofs.list()) {
    if (!isLeftover(proof, alive, deps.now())) continue;
    const outcome = await removeOne(deps, proof);
    if (outcome.result !== 'failed') deps.proofs.finish(proof.name);
    outcomes.push(outcome);
  }
  return outcomes;
}

async function removeOne(deps: ProofLeftoverDeps, proof: WriteProof): Promise<LeftoverOutcome> {
  try {
    const id = proof.documentId ?? (await findByName(deps, proof));
    if (id === null) return { result: 'gone', proof };
    const doc = await readOrNull(deps, proof, id);
    if (doc === null) return { result: 'gone', proof };
    if (doc.name.trim() !== proof.name) return { result: 'renamed', proof, documentId: id };
    // Deleted without a copy only while it holds nothing but what the proof made.
    if (doc.attachments.some((a) => a.name !== PROOF_FILE_NAME))
      return { result: 'used', proof, documentId: id };
    await deps.remote.deleteDocument(proof.owner, id).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    return { result: 'removed', proof, documentId: id };
  } catch (error) {
    // Stopping: the sync's own stop; the record waits for the next one.
    if (!(error instanceof DocsyncError) || error instanceof RunStoppedError) throw error;
    return { result: 'failed', proof, reason: error.message };
  }
}

/** A proof stopped before its create answered: the document it may have made, by its name. */
async function findByName(deps: ProofLeftoverDeps, proof: WriteProof): Promise<string | null> {
  for await (const entry of deps.remote.documents(proof.owner)) {
    if (!('malformed' in entry) && entry.name.trim() === proof.name) return entry.id;
  }
  return null;
}

async function readOrNull(deps: ProofLeftoverDeps, proof: WriteProof, id: string) {
  try {
    return await deps.remote.document(proof.owner, id);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

const isNotFound = (error: unknown) => error instanceof ApiError && error.status === 404;

/** Whether a process of this id runs on this machine (one of another user's counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
