/**
 * The link the service shows beside a document (the webhook answer's `resourceUrl`). Where a
 * document lives locally changes: it has no folder until docsync pulls it, and a user may move
 * its folder later. So docsync can answer a stable link to its own status listener
 * (`{status.publicUrl}/documents/{id}`), which redirects, when followed, to where the document
 * is then: its folder's link (`webhook.resourceUrlTemplate` filled in), or the service's page
 * of its entity while docsync has no folder for it, or the service's start page while docsync
 * does not even know its entity.
 */
import { entityDeepLink } from './deep-links.js';
import type { OwnerKind } from './types.js';

/** What docsync knows of a document's whereabouts. */
export interface DocumentPlace {
  readonly documentId?: string | undefined;
  readonly ownerKind?: OwnerKind | undefined;
  readonly ownerId?: string | undefined;
  /** Folder of the document (or entity), relative to the store root. */
  readonly path?: string | undefined;
}

export interface DocumentLinkSettings {
  /** `webhook.resourceUrlTemplate`: the link of a document's folder. */
  readonly template?: string | undefined;
  /** `service.webUrl`. */
  readonly webUrl: string;
}

const PLACEHOLDER = /\{(documentId|ownerKind|ownerId|path)\}/g;

/**
 * The template with `{documentId}`, `{ownerKind}`, `{ownerId}` and `{path}` filled in, each
 * URL-encoded; null when it needs a value not known yet (a link with a hole leads nowhere).
 */
export function fillLinkTemplate(template: string, place: DocumentPlace): string | null {
  let missing = false;
  const url = template.replace(PLACEHOLDER, (_all, name: keyof DocumentPlace) => {
    const value = place[name];
    if (value === undefined || value === '') missing = true;
    return encodeURIComponent(value ?? '');
  });
  return missing ? null : url;
}

/** Where the document's link leads now (see the header): never nowhere. */
export function currentDocumentLink(settings: DocumentLinkSettings, place: DocumentPlace): string {
  const filled = settings.template ? fillLinkTemplate(settings.template, place) : null;
  if (filled) return filled;
  if (place.ownerKind && place.ownerId)
    return entityDeepLink(settings.webUrl, { kind: place.ownerKind, id: place.ownerId });
  return `${settings.webUrl.replace(/\/+$/, '')}/s/html/main.html`;
}

/**
 * The stable link on docsync's status listener. It carries the entity the service named, so
 * the redirect can show the entity's page before docsync has seen the document.
 */
export function stableDocumentLink(publicUrl: string, documentId: string, entityId?: string) {
  const base = `${publicUrl.replace(/\/+$/, '')}/documents/${encodeURIComponent(documentId)}`;
  return entityId ? `${base}?entity=${encodeURIComponent(entityId)}` : base;
}
