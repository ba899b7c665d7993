/** Links into the service's web application (api.md, "Deep links into the service"). */
import type { OwnerRef } from './types.js';

export function entityLink(webUrl: string, owner: OwnerRef): string {
  const base = webUrl.replace(/\/+$/, '');
  const id = encodeURIComponent(owner.id);
  return owner.kind === 'company'
    ? `${base}/s/html/main.html#/company/documents?cid=${id}`
    : `${base}/s/html/main.html#/trusts/${id}/documents`;
}
