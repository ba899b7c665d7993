/**
 * The default `resolveResource` of the webhook receiver: what the state database already knows
 * about the message's document (its base row: owner and folder) or, failing that, its entity.
 * A document docsync has never seen has no folder yet, so `{path}` stays unknown for it.
 */
import type { OwnerKind } from '../domain/types.js';
import type { StateStore } from '../state/state-store.js';
import type { DocumentChangeEvent } from './webhook-event.js';
import type { ResolveResource } from './webhook-request.js';

const KINDS: readonly OwnerKind[] = ['company', 'trust'];

export function resolveFromState(state: StateStore): ResolveResource {
  return (event: DocumentChangeEvent) => {
    const documentId = event.documentIds[0];
    const base = documentId === undefined ? null : state.base.get(documentId);
    if (base) return { ownerKind: base.owner.kind, ownerId: base.owner.id, path: base.folder };
    for (const kind of KINDS) {
      if (state.entities.get({ kind, id: event.entityId })) {
        return { ownerKind: kind, ownerId: event.entityId };
      }
    }
    return { ownerId: event.entityId };
  };
}
