/**
 * What the state knows of a document's whereabouts, for its link (domain/document-link.ts):
 * its base row (owner and folder) once it is synced, else its entity, named by the service.
 */
import type { DocumentPlace } from '../domain/document-link.js';
import type { StateStore } from './state-store.js';

export function documentPlace(
  state: Pick<StateStore, 'base' | 'entities'>,
  documentId: string | undefined,
  entityId: string | undefined,
): DocumentPlace {
  const base = documentId === undefined ? null : state.base.get(documentId);
  if (base)
    return { documentId, ownerKind: base.owner.kind, ownerId: base.owner.id, path: base.folder };
  if (entityId === undefined) return { documentId };
  // The service may spell the id otherwise than its lists do (domain/ids.ts): the stored one.
  const entity = state.entities.findById(entityId)?.entity;
  if (entity) return { documentId, ownerKind: entity.kind, ownerId: entity.id };
  return { documentId, ownerId: entityId };
}
