/**
 * `resourceUrl` of the webhook answer: `webhook.resourceUrlTemplate` with `{documentId}`,
 * `{ownerKind}`, `{ownerId}` and `{path}` filled in, each URL-encoded. When the template needs
 * a value we do not know yet (a new document has no folder until it is synced), no URL is
 * answered: the field is optional, and a link with a hole in it would lead nowhere.
 */
import type { OwnerKind } from '../domain/types.js';

export interface ResourceValues {
  readonly documentId?: string | undefined;
  readonly ownerKind?: OwnerKind | undefined;
  readonly ownerId?: string | undefined;
  /** Folder of the document (or entity), relative to the store root. */
  readonly path?: string | undefined;
}

const PLACEHOLDER = /\{(documentId|ownerKind|ownerId|path)\}/g;

export function fillResourceUrl(template: string, values: ResourceValues): string | null {
  let missing = false;
  const url = template.replace(PLACEHOLDER, (_all, name: keyof ResourceValues) => {
    const value = values[name];
    if (value === undefined || value === '') missing = true;
    return encodeURIComponent(value ?? '');
  });
  return missing ? null : url;
}
