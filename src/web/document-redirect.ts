/**
 * `GET /documents/{documentId}[?entity={entityId}]` on the status listener: the stable link a
 * webhook answer gives the service (domain/document-link.ts). Each visit redirects to where the
 * document is now: its folder's link once docsync has it, the service's page of its entity
 * before. A link the service shows beside a new document thus works at once, and keeps working
 * when the document is synced or its folder moves.
 */
import type { ServerResponse } from 'node:http';
import { currentDocumentLink, type DocumentLinkSettings } from '../domain/document-link.js';
import { documentPlace } from '../state/document-place.js';
import type { StateStore } from '../state/state-store.js';

export const DOCUMENT_LINK_PREFIX = '/documents/';

export function redirectToDocument(
  state: Pick<StateStore, 'base' | 'entities'>,
  settings: DocumentLinkSettings,
  url: URL,
  res: ServerResponse,
): void {
  const documentId = decoded(url.pathname.slice(DOCUMENT_LINK_PREFIX.length));
  const entityId = url.searchParams.get('entity') ?? undefined;
  if (!documentId || documentId.includes('/')) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('not found: /documents/<documentId>\n');
    return;
  }
  const location = currentDocumentLink(settings, documentPlace(state, documentId, entityId));
  res.writeHead(302, { Location: location, 'Cache-Control': 'no-store', 'Content-Length': 0 });
  res.end();
}

function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
