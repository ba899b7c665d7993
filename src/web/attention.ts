/**
 * What waits for a person, counted once by the state
 * (state/health-facts.ts) for the status page's header ("Needs attention (N)"), `/healthz`'s
 * list and the `docsync_attention_items` metric, and worded here.
 * Waiting for a person is not being down: docsync syncs everything else meanwhile, so none of
 * this makes `/healthz` 503 (health.ts says what does).
 */
import type { WaitingCounts } from '../state/health-facts.js';

/** In the order the page lists them: what holds sync back first. */
export const ATTENTION_KINDS = [
  'held-deletes',
  'conflicts',
  'items-in-error',
  'failed-pushes',
  'unmatched-folders',
  'not-synced',
] as const satisfies readonly (keyof WaitingCounts)[];
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

export type AttentionCounts = WaitingCounts;

export interface AttentionItem {
  readonly kind: AttentionKind;
  readonly count: number;
  /** "3 deletes held by a safety rail wait for a decision". */
  readonly says: string;
  /** Where the status page lists them. */
  readonly section: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const WORDS: Readonly<Record<AttentionKind, { say: (n: number) => string; section: string }>> = {
  'held-deletes': {
    say: (n) =>
      `${plural(n, 'delete', 'deletes')} held by a safety rail ${n === 1 ? 'waits' : 'wait'} for a decision`,
    section: 'held',
  },
  conflicts: {
    say: (n) => `${plural(n, 'conflict', 'conflicts')} to look at`,
    section: 'conflicts',
  },
  'items-in-error': {
    say: (n) => `${plural(n, 'item', 'items')} in error`,
    section: 'errors',
  },
  'failed-pushes': {
    say: (n) => `${plural(n, 'push', 'pushes')} the service refused`,
    section: 'pushes',
  },
  'unmatched-folders': {
    say: (n) => `${plural(n, 'folder matches', 'folders match')} nothing in the service`,
    section: 'unmatched',
  },
  'not-synced': {
    say: (n) => `${plural(n, 'entry is', 'entries are')} not synced`,
    section: 'not-synced',
  },
};

/** The kinds that have something, with their sentence, in the page's order. */
export function attentionItems(counts: AttentionCounts): AttentionItem[] {
  return ATTENTION_KINDS.filter((kind) => counts[kind] > 0).map((kind) => ({
    kind,
    count: counts[kind],
    says: WORDS[kind].say(counts[kind]),
    section: WORDS[kind].section,
  }));
}

export function attentionTotal(items: readonly AttentionItem[]): number {
  return items.reduce((n, item) => n + item.count, 0);
}
