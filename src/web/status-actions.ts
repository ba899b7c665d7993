/**
 * The page's actions as POST routes: read the form (a few fields, 8 KiB at most), refuse it
 * without the page's CSRF token (403), check its fields (400), hand it to the daemon's
 * `PageActions`, and answer with what became of it: JSON for the page's script, a small page
 * with a link back for a browser without script. A decision that takes effect in a sync
 * (`syncAfter`) queues that entity's sync at once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { assertNever } from '../domain/assert-never.js';
import { CONFLICT_CHOICES } from '../domain/plan-resolution.js';
import type { OwnerRef } from '../domain/types.js';
import { readBody } from '../triggers/read-body.js';
import { CSRF_FIELD } from './csrf.js';
import { html } from './html.js';
import type { ActionOutcome, HeldSeen, PageActions } from './page-actions.js';
import { send } from './respond.js';
import type { StatusContext } from './status-server.js';

const FORM_LIMIT = 8 * 1024;

type Answer = ActionOutcome | { readonly kind: 'bad-request'; readonly message: string };

export type ActionRoute = (actions: PageActions, form: URLSearchParams) => Promise<Answer>;

export const STATUS_ACTIONS: Readonly<Record<string, ActionRoute>> = {
  '/actions/sync': async (actions, form) => {
    const owner = ownerOf(form);
    return owner ? actions.syncEntity(owner) : badOwner;
  },
  '/actions/approve-deletes': async (actions, form) => {
    const seen = seenOf(form);
    if (!seen) return badSeen;
    if (form.get('scope') === 'all')
      return actions.operator.approveHeldDeletes({ owner: null, seen });
    const owner = ownerOf(form);
    return owner ? actions.operator.approveHeldDeletes({ owner, seen }) : badOwner;
  },
  '/actions/resolve-conflict': async (actions, form) => {
    const conflictId = Number(form.get('conflict'));
    const resolution = CONFLICT_CHOICES.find((r) => r === form.get('resolution'));
    if (!Number.isSafeInteger(conflictId) || conflictId <= 0 || !resolution) {
      return {
        kind: 'bad-request',
        message: `conflict must be a conflict's id and resolution one of ${CONFLICT_CHOICES.join(', ')}`,
      };
    }
    return actions.operator.resolveConflict({ conflictId, resolution });
  },
};

const badOwner: Answer = {
  kind: 'bad-request',
  message: 'kind must be company or trust, and id an entity id',
};

const badSeen: Answer = {
  kind: 'bad-request',
  message:
    'count and newest must say what the page showed: how many deletes waited, and when the newest was held (ms)',
};

/** What the page showed beside the button; an approval without it would take whatever waits. */
function seenOf(form: URLSearchParams): HeldSeen | null {
  const count = Number(form.get('count') ?? Number.NaN);
  const newest = Number(form.get('newest') ?? Number.NaN);
  if (!Number.isSafeInteger(count) || count <= 0 || !Number.isSafeInteger(newest)) return null;
  return { count, newest };
}

function ownerOf(form: URLSearchParams): OwnerRef | null {
  const kind = form.get('kind');
  const id = form.get('id');
  if ((kind !== 'company' && kind !== 'trust') || !id) return null;
  return { kind, id };
}

export async function runAction(
  ctx: StatusContext,
  actions: PageActions,
  route: ActionRoute,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readBody(req, FORM_LIMIT);
  if (!body.ok) {
    if (body.reason === 'aborted') return;
    res.setHeader('Connection', 'close');
    return answer(req, res, { kind: 'bad-request', message: 'the form is too large' }, 413);
  }
  const form = new URLSearchParams(body.body.toString('utf8'));
  const refusal = ctx.csrf.refusal(req, form.get(CSRF_FIELD));
  if (refusal !== null) {
    ctx.logger.warn({ url: req.url, refusal }, 'status page action refused');
    return answer(req, res, { kind: 'bad-request', message: `refused: ${refusal}` }, 403);
  }
  const outcome = await route(actions, form);
  if (outcome.kind === 'done')
    for (const owner of outcome.syncAfter ?? []) actions.syncEntity(owner);
  const level = outcome.kind === 'failed' ? 'warn' : 'info';
  ctx.logger[level]({ url: req.url, outcome: outcome.kind }, outcome.message);
  answer(req, res, outcome);
}

function statusOf(answer: Answer): number {
  switch (answer.kind) {
    case 'done':
      return 200;
    case 'bad-request':
      return 400;
    case 'not-found':
      return 404;
    case 'refused':
      return 409;
    case 'failed':
      return 500;
    default:
      return assertNever(answer);
  }
}

/** JSON for the page's script; otherwise a small page with the message and a link back. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  outcome: Answer,
  status = statusOf(outcome),
) {
  const body = { ok: outcome.kind === 'done', message: outcome.message };
  if ((req.headers.accept ?? '').includes('application/json')) {
    return send(res, status, 'application/json', JSON.stringify(body));
  }
  const page = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docsync</title></head>
<body><p>${outcome.message}</p><p><a href="/">Back to the status page</a></p></body></html>
`;
  send(res, status, 'text/html; charset=utf-8', page.text);
}
