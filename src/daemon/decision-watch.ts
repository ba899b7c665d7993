/**
 * A person's decisions handed over by a command (`docsync conflicts resolve`, `deletes
 * approve|discard`, `trash restore`, another process; operator/decisions.ts), reaching the daemon
 * from outside its own event loop: every half second it reads the open ones (one statement on a
 * table empty but for them), carries each out under each entity's lock, between its syncs, and
 * writes the outcome back for the command, which waits for it. The entities touched are synced;
 * for held deletes the daemon waits for those syncs, so the command can say what became of the
 * deletes. (The status page's decisions ask for their entities' syncs themselves, `syncAfter`.)
 */
import { type HeldDecision, heldKey } from '../domain/held-deletes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { Logger } from '../log/create-logger.js';
import {
  type DecisionOutcome,
  type DecisionRequest,
  decodeRequest,
  encodeOutcome,
  ownersOf,
} from '../operator/decisions.js';
import type { Decided } from '../operator/held-deletes.js';
import { isStateFailure } from '../state/state-failure.js';
import type { StateStore } from '../state/state-store.js';
import type { SyncOutcome } from './work-scheduler.js';

/** How often the state is read for decisions: a person is waiting on them. */
const DECISION_POLL_MS = 500;

export interface DecisionWatchOptions {
  readonly state: Pick<StateStore, 'heldDeletes' | 'operatorDecisions'>;
  readonly logger: Logger;
  /** Asks for a sync of the entity; resolves with what became of it. */
  readonly sync: (owner: OwnerRef) => Promise<SyncOutcome>;
  /** Carries out a handed-over decision, each entity's part under its lock. */
  readonly carryOut: (request: DecisionRequest) => Promise<DecisionOutcome>;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
}

/**
 * Starts watching; the returned function stops it, resolving once the decisions under way have
 * written their outcome (the daemon closes the state after).
 */
export function watchDecisions(options: DecisionWatchOptions): () => Promise<void> {
  const watch = new DecisionWatch(options);
  const timer = setInterval(() => watch.tick(), DECISION_POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    return watch.settled();
  };
}

class DecisionWatch {
  /** Handed-over decisions being carried out now, by id. */
  readonly #inFlight = new Map<number, Promise<void>>();

  constructor(private readonly options: DecisionWatchOptions) {}

  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  tick(): void {
    try {
      for (const row of this.options.state.operatorDecisions.open()) {
        if (this.#inFlight.has(row.id)) continue;
        const work = this.#carryOut(row.id, row.kind, row.requestJson)
          .catch(this.options.onError)
          .finally(() => this.#inFlight.delete(row.id));
        this.#inFlight.set(row.id, work);
      }
    } catch (error) {
      this.options.onError(error);
    }
  }

  async #carryOut(id: number, kind: DecisionRequest['kind'], json: string): Promise<void> {
    const { state, logger, now } = this.options;
    let request: DecisionRequest;
    try {
      request = decodeRequest(kind, json);
    } catch (error) {
      const message = `The decision could not be read (${(error as Error).message}); nothing was changed.`;
      state.operatorDecisions.finish(
        id,
        encodeOutcome(kind, { ok: false, code: 'BAD_DECISION', message, notFound: false }),
        now(),
      );
      return;
    }
    logger.info({ decision: id, kind }, `carrying out a decision from the command line (${kind})`);
    let outcome: DecisionOutcome;
    try {
      outcome = await this.options.carryOut(request);
    } catch (error) {
      // A state failure stops the daemon (the decision stays open for the next start); any other
      // failure is the outcome, or the decision would be tried again every half second.
      if (isStateFailure(error)) throw error;
      logger.error({ err: error, decision: id, kind }, 'carrying out a decision failed');
      const message = `Carrying it out failed: ${(error as Error).message}. The daemon's log has the details; look at the folder before trying again.`;
      outcome = { ok: false, code: 'DECISION_FAILED', message, notFound: false };
    }
    const owners = ownersOf(outcome);
    if (outcome.ok && 'held' in outcome.result)
      outcome = { ok: true, result: await this.#afterHeld(outcome.result, owners) };
    else for (const owner of owners) void this.options.sync(owner);
    state.operatorDecisions.finish(id, encodeOutcome(kind, outcome), now());
    logger.info(
      { decision: id, kind, ok: outcome.ok, owners: owners.map(ownerKey) },
      outcome.ok ? `decision carried out (${kind})` : `decision refused: ${outcome.message}`,
    );
  }

  /**
   * Held deletes decided: their entities' syncs carry the decision out, and the outcome says
   * what became of them once those syncs ended.
   */
  async #afterHeld(result: Decided, owners: readonly OwnerRef[]): Promise<Decided> {
    for (const h of result.held) this.#sayHeld(h.owner, h.documentId, h.folder, result.decision);
    const synced = await Promise.all(owners.map((owner) => this.options.sync(owner)));
    const still = new Set(
      this.options.state.heldDeletes.list().map((h) => heldKey(h.side, h.documentId)),
    );
    const left = result.held.filter((h) => still.has(heldKey(h.side, h.documentId))).length;
    const failed = synced.filter((s) => s !== 'synced').length;
    const next =
      left === 0
        ? `carried out now by the running daemon's sync of ${owners.length === 1 ? 'that company or trust' : `those ${owners.length} companies and trusts`}`
        : `${result.held.length - left} carried out now by the running daemon; ${left} wait for a later sync${failed > 0 ? ` (${failed} of its syncs failed; they are tried again)` : ''}: \`docsync deletes list\` shows them`;
    return { ...result, next };
  }

  #sayHeld(owner: OwnerRef, documentId: string, folder: string, decision: HeldDecision): void {
    const what = decision === 'approve' ? 'approved' : 'discarded';
    this.options.logger.info(
      { owner: ownerKey(owner), document: documentId, decision },
      `held delete of ${folder} ${what}; syncing its ${owner.kind}`,
    );
  }
}
