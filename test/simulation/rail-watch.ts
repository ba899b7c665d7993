/**
 * Invariant 15, the delete rails judge a burst whole (docs/deletes.md, sections 2 and 3): under
 * the daemon, the deletes falling due now are counted with every delete still in its hold
 * anywhere in the store and with those carried out within the window; over
 * `safety.maxDeleteCount` or `safety.maxDeletePercent` of the store, none goes without a person.
 *
 * Judged from outside, so that nothing here repeats the code it judges: for each delete the
 * service carried out without a person's approval, the harness knows what was in the store's
 * hold as its entity was planned (the `entity-planned` failpoint: the entity's lock is kept from
 * there until the delete is sent, and the rails judge in between) and which of those went later
 * without approval, and which deletes went before it within the shortest window the daemon can
 * have (the `schedule.cron` interval). Each of those the daemon counted too, so together with
 * the delete itself they must be within the rails, the percentage over the agreed documents as
 * the entity was planned or as the delete was sent, whichever was more.
 *
 * A delete in hold at planning that the daemon did not count is left out: one whose folder was
 * removed again since (put back between, its hold begun anew), and one a person approved.
 */
import type { OwnerRef } from '../../src/domain/types.js';
import type { StateStore } from '../../src/state/state-store.js';
import type { Finding } from './sim-ledger.js';

export const RAILS_JUDGE_WHOLE =
  'the delete rails judge a burst whole: no more go without a person than safety.* allows';

export interface RailLimits {
  readonly maxDeletePercent: number;
  readonly maxDeleteCount: number;
  /** The shortest the daemon's window can be: the `schedule.cron` interval. */
  readonly windowMs: number;
}

/** What the store held as an entity was planned. */
interface PlannedSample {
  readonly at: number;
  readonly seq: number;
  /** Remote document deletes in their hold time anywhere in the store. */
  readonly inHold: ReadonlySet<string>;
  readonly agreed: number;
}

/** A document delete in the service, carried out, as the harness saw it sent. */
export interface SentDelete {
  readonly documentId: string;
  /** The daemon's life that sent it: its window is its own. */
  readonly life: number;
  /**
   * When it was sent and when its entity was planned in the cycle that sent it: virtual times
   * for the window, and the ledger's sequence for the order (many steps share one instant).
   */
  readonly sentAt: number;
  readonly sentSeq: number;
  readonly plannedAt: number;
  readonly plannedSeq: number;
  readonly inHoldAtPlan: ReadonlySet<string>;
  /** The store's agreed documents as its entity was planned and as it was sent. */
  readonly agreedAtPlan: number;
  readonly agreedAtSend: number;
  /** A person approved it (`docsync deletes approve`, the page's Approve): past the rails. */
  readonly approved: boolean;
}

export class RailWatch {
  readonly #planned = new Map<string, PlannedSample>();
  readonly #sending = new Map<string, SentDelete>();
  readonly sent: SentDelete[] = [];

  /** `seq`: the ledger's next sequence number, the order of what happens in one instant. */
  constructor(private readonly seq: () => number) {}

  /** An entity planned: the rails judge its deletes after now, under its lock. */
  planned(life: number, owner: OwnerRef, state: StateStore): void {
    const inHold = new Set(
      state.heldDeletes
        .list()
        .filter((h) => h.side === 'remote' && h.dueAt !== null && h.decision === null)
        .map((h) => h.documentId),
    );
    this.#planned.set(`${life} ${owner.kind}:${owner.id}`, {
      at: Date.now(),
      seq: this.seq(),
      inHold,
      agreed: state.base.countAll(),
    });
  }

  /** A document delete about to be sent, by the life `life`. */
  sending(life: number, owner: OwnerRef, documentId: string, state: StateStore): void {
    const sample = this.#planned.get(`${life} ${owner.kind}:${owner.id}`);
    if (!sample) return;
    const approved = state.heldDeletes
      .list()
      .some((h) => h.documentId === documentId && h.side === 'remote' && h.decision === 'approve');
    this.#sending.set(documentId, {
      documentId,
      life,
      sentAt: Date.now(),
      sentSeq: this.seq(),
      plannedAt: sample.at,
      plannedSeq: sample.seq,
      inHoldAtPlan: sample.inHold,
      agreedAtPlan: sample.agreed,
      agreedAtSend: state.base.countAll(),
      approved,
    });
  }

  /** Its answer: carried out (a lost answer included) or not. */
  answered(documentId: string, carriedOut: boolean): void {
    const sent = this.#sending.get(documentId);
    this.#sending.delete(documentId);
    if (sent && carriedOut) this.sent.push(sent);
  }
}

/**
 * The deletes that went past the rails, one finding for the largest set. `removedAt`: the
 * ledger's sequence number of a person's last removal of each document's folder (the book's).
 */
export function railFindings(
  sent: readonly SentDelete[],
  limits: RailLimits,
  removedAt: ReadonlyMap<string, number>,
): Finding[] {
  const unapproved = firstSends(sent).filter((d) => !d.approved);
  let worst: { readonly delete: SentDelete; readonly together: string[] } | null = null;
  for (const d of unapproved) {
    const counted = new Set([d.documentId]);
    for (const x of unapproved) {
      const inHoldThen =
        d.inHoldAtPlan.has(x.documentId) &&
        x.sentSeq > d.plannedSeq &&
        (removedAt.get(x.documentId) ?? 0) < d.plannedSeq;
      const inWindow =
        x.life === d.life && x.sentSeq < d.plannedSeq && x.plannedAt > d.sentAt - limits.windowMs;
      if (inHoldThen || inWindow) counted.add(x.documentId);
    }
    const agreed = Math.max(d.agreedAtPlan, d.agreedAtSend);
    if (overRail(counted.size, agreed, limits) && counted.size > (worst?.together.length ?? 0))
      worst = { delete: d, together: [...counted] };
  }
  if (!worst) return [];
  const { delete: d, together } = worst;
  const agreed = Math.max(d.agreedAtPlan, d.agreedAtSend);
  return [
    {
      invariant: RAILS_JUDGE_WHOLE,
      detail: `document ${d.documentId}'s delete was judged with ${together.length} deletes that all went without a person (${together.join(', ')}), over ${overRail(together.length, agreed, limits)}`,
    },
  ];
}

/** A delete sent again (its answer lost) is one delete: the first time it went. */
function firstSends(sent: readonly SentDelete[]): SentDelete[] {
  const seen = new Set<string>();
  return [...sent]
    .sort((a, b) => a.sentSeq - b.sentSeq)
    .filter((d) => !seen.has(d.documentId) && seen.add(d.documentId));
}

/** The rail a count of deletes judged together goes over, or null. */
function overRail(count: number, agreed: number, limits: RailLimits): string | null {
  if (count > limits.maxDeleteCount) return `safety.maxDeleteCount ${limits.maxDeleteCount}`;
  if (count * 100 > limits.maxDeletePercent * agreed)
    return `safety.maxDeletePercent ${limits.maxDeletePercent} of ${agreed} documents`;
  return null;
}
