/**
 * Deep links into the service's web application (api.md "Deep links into the service"): the
 * page listing all documents of a company or trust. `.entity.json`, the `Open in compliance
 * service.url` shortcut, `.document.json` and `docsync open` all take their link from here, so
 * they never disagree. The path is fixed by the service; only `webUrl` is ours to configure.
 */
import type { OwnerRef } from './types.js';

export function entityDeepLink(webUrl: string, owner: OwnerRef): string {
  const base = `${webUrl.replace(/\/+$/, '')}/s/html/main.html`;
  const id = encodeURIComponent(owner.id);
  return owner.kind === 'company'
    ? `${base}#/company/documents?cid=${id}`
    : `${base}#/trusts/${id}/documents`;
}
