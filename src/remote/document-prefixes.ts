/**
 * The prefix of the document routes, found by asking. api.md calls an owner's documents at
 * `/{owner}/documents…`; the public pages put a company's there but a trust's under
 * `/cas/trusts/…`. So on first contact (`docsync check`, the first run) a document list that
 * answers 404 is asked again with `/cas` added (or removed); the prefix that answers is recorded
 * in the state, used by every document route of that kind whose path is not set in the
 * configuration, and said once. Only a list is ever retried this way: a 404 on a document's
 * details means it was deleted, and a write is never sent twice to find out where it goes.
 */
import type { OwnerKind } from '../domain/types.js';

export type DocumentPrefix = '' | '/cas';

/** Where the found prefixes are kept (the state's settings). */
export interface PrefixStore {
  documentPrefix(kind: OwnerKind): DocumentPrefix | null;
  recordDocumentPrefix(kind: OwnerKind, prefix: DocumentPrefix): void;
}

/** A prefix found: what to say once. */
export interface PrefixFound {
  readonly kind: OwnerKind;
  readonly prefix: DocumentPrefix;
  /** The document list's route as it answered, e.g. `GET /cas/trusts/{trustId}/documents`. */
  readonly answered: string;
  /** The one that answered 404 first, when the built-in one did not answer. */
  readonly refused: string | null;
}

/** The prefix to try when `prefix` answered 404. */
export function otherPrefix(prefix: DocumentPrefix): DocumentPrefix {
  return prefix === '' ? '/cas' : '';
}

/** The log's line: where a kind's documents answered, and what follows from it. */
export function prefixFoundLine(found: PrefixFound): string {
  const how = found.refused
    ? `${found.refused} answered 404, ${found.answered} answered`
    : `${found.answered} answered`;
  return `${prefixSentence(found.kind, found.prefix)} (${how}; recorded in the state)`;
}

/** "The documents of trusts are under /cas: …", for the log and for check. */
export function prefixSentence(kind: OwnerKind, prefix: DocumentPrefix): string {
  const kinds = kind === 'company' ? 'companies' : 'trusts';
  const where = prefix === '' ? 'without a prefix' : `under ${prefix}`;
  return (
    `the documents of ${kinds} are ${where}: every route of their documents is called so, but ` +
    'assigning a status (under /cas for both kinds) and a path set in service.routes'
  );
}

export class DocumentPrefixes {
  readonly #known = new Map<OwnerKind, DocumentPrefix>();

  constructor(
    private readonly store: PrefixStore | null = null,
    private readonly onFound?: (found: PrefixFound) => void,
  ) {}

  /** The prefix found for `kind` (by this process or an earlier one), or null. */
  known(kind: OwnerKind): DocumentPrefix | null {
    const held = this.#known.get(kind);
    if (held !== undefined) return held;
    const stored = this.store?.documentPrefix(kind) ?? null;
    if (stored !== null) this.#known.set(kind, stored);
    return stored;
  }

  record(found: PrefixFound): void {
    if (this.known(found.kind) === found.prefix) return;
    this.#known.set(found.kind, found.prefix);
    this.store?.recordDocumentPrefix(found.kind, found.prefix);
    this.onFound?.(found);
  }
}
