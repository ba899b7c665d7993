/**
 * The last look before a status is pushed: the service's status must still be the one the plan
 * saw (the agreed one, or the one a newer local edit wins over: row 23). A status a service user
 * set after the plan was made is the newer change (the decision table's principle 3); pushing
 * over it would replace it with no conflict recorded. The push is not sent (RemoteChangedError):
 * the document is planned again, and that plan judges both changes (rows 22 to 24). The service
 * has no conditional assignment, so a status set between this look and the push still goes
 * unseen: the window is one request, as for a delete's second look (save-service-copy.ts).
 */
import { RemoteChangedError } from '../domain/errors.js';
import type { ActionContext } from './execute-action.js';

export async function checkStatusStillAgreed(
  ctx: Pick<ActionContext, 'deps' | 'owner'>,
  documentId: string,
  planned: string | null,
): Promise<void> {
  const now = await ctx.deps.remote.document(ctx.owner, documentId);
  if ((now.status?.id ?? null) !== planned) throw new RemoteChangedError(documentId, 'status');
}
