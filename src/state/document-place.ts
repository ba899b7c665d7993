/**
 * What the state knows of a document's whereabouts, for its link (domain/document-link.ts):
 * its base row (owner and folder) once it is synced, else its entity, named by the service.
 */
import type { DocumentPlace } from '../domain/document-link.js';
import type { OwnerKind } from '../domain/types.js';
import type { StateStore } from './state-store.js';

const KINDS: readonly OwnerKind[] = ['company', 'trust'];

export function documentPlace(
  state: Pick<StateStore, 'base' | 'entities'>,
  documentId: string | undefined,
  entityId: string | undefined,
): DocumentPlace {
  const base = documentId === undefined ? null : state.base.get(documentId);
  if (base)
    return { documentId, ownerKind: base.owner.kind, ownerId: base.owner.id, path: base.folder };
  if (entityId === undefined) return { documentId };
  for (const kind of KINDS) {
    if (state.entities.get({ kind, id: entityId }))
      return { documentId, ownerKind: kind, ownerId: entityId };
  }
  return { documentId, ownerId: entityId };
}
