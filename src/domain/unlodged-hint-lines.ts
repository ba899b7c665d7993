/**
 * What the log says of the firm-wide hint (daemon/unlodged-sweep.ts): a line for one hint, and
 * one line for many, so a page of hundreds of documents the state lacks (after a restart, or a
 * day of changes while docsync was down) is one line, not hundreds. Pure.
 */
import { ownerKey } from './owner-key.js';
import type { OwnerRef } from './types.js';
import type { UnlodgedHint } from './unlodged-hints.js';
import { plural } from './words.js';

/** A hint with the company it lists. */
export interface SentHint {
  readonly hint: UnlodgedHint;
  readonly owner: OwnerRef;
}

const WHAT: Readonly<Record<UnlodgedHint['reason'], (documentId: string) => string>> = {
  'new-document': (id) => `a new document ${id}`,
  'new-status': (id) => `a new status of document ${id}`,
  'left-the-list': (id) => `document ${id} gone from it (lodged or deleted)`,
};

export function hintLine(hint: UnlodgedHint, owner: OwnerRef): string {
  return `the firm's unlodged list shows ${WHAT[hint.reason](hint.documentId)}: listing ${owner.kind} ${owner.id}${hint.whole ? ' whole' : ''} now`;
}

/** Named in a summary line, the rest counted. */
const NAMED = 3;
/** The documents and companies a summary carries as fields. */
const LISTED = 10;

/**
 * "the firm's unlodged list shows 360 changes (360 new documents): listing 3 companies now:
 * company a, company b, company c", with the counts, the companies and the first documents as
 * fields.
 */
export function hintSummary(sent: readonly SentHint[]) {
  const count = (reason: UnlodgedHint['reason']) =>
    sent.filter(({ hint }) => hint.reason === reason).length;
  const reasons = {
    newDocuments: count('new-document'),
    newStatuses: count('new-status'),
    goneFromList: count('left-the-list'),
  };
  const said = [
    reasons.newDocuments > 0 ? plural(reasons.newDocuments, 'new document') : '',
    reasons.newStatuses > 0
      ? `${reasons.newStatuses} new ${reasons.newStatuses === 1 ? 'status' : 'statuses'}`
      : '',
    reasons.goneFromList > 0 ? `${reasons.goneFromList} gone from it (lodged or deleted)` : '',
  ].filter(Boolean);
  const owners = new Map<string, string>();
  for (const { hint, owner } of sent) {
    const key = ownerKey(owner);
    const label = `${owner.kind} ${owner.id}${hint.whole ? ' whole' : ''}`;
    if (!owners.has(key) || hint.whole) owners.set(key, label);
  }
  const labels = [...owners.values()];
  const more = labels.length - NAMED;
  const named = `${labels.slice(0, NAMED).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  return {
    fields: {
      hints: sent.length,
      ...reasons,
      owners: [...owners.keys()].slice(0, LISTED),
      documentIds: sent.slice(0, LISTED).map(({ hint }) => hint.documentId),
    },
    line:
      `the firm's unlodged list shows ${sent.length} changes (${said.join(', ')}): ` +
      `listing ${plural(owners.size, 'company')} now: ${named}`,
  };
}
