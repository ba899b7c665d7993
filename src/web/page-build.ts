/**
 * The status page (`GET /`), built in slices with the event loop free between them: the header's
 * facts with the problem lists, the page of entities, the stalest entity, the activity, then the
 * HTML. At a firm of thousands of entities the page is tens of milliseconds of work; built at
 * once, it held back everything else the daemon does for that long at each refresh of each open
 * page: a monitor's `/healthz`, a webhook's answer, the answers of the service's requests. In
 * slices, what arrives meanwhile waits for one slice at most.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ACTIVITY_SHOWN, type StatusPageQuery } from '../state/status-page-data.js';
import { attentionItems } from './attention.js';
import { advised, checkHealth } from './health.js';
import { renderStatusPage } from './status-page.js';
import type { StatusContext } from './status-server.js';

export async function buildStatusPage(ctx: StatusContext, query: StatusPageQuery): Promise<string> {
  const { state } = ctx;
  // The header and the lists it counts, read together so they agree.
  const problems = state.pageProblems();
  await nextTurn();
  const entities = state.entityPage(query.entities);
  await nextTurn();
  const stalest = state.stalestEntity();
  await nextTurn();
  const activity = state.activity.recent(ACTIVITY_SHOWN, query.activityBefore);
  await nextTurn();
  const runtime = ctx.runtime();
  const now = ctx.now();
  const facts = problems.health;
  const health = advised(
    checkHealth(facts, runtime, attentionItems(facts.waiting), ctx.maxAgeMs, now),
    ctx.advice,
  );
  return renderStatusPage({
    advice: ctx.advice,
    data: { ...problems, entities, stalest, activity },
    query,
    runtime,
    health,
    root: ctx.root,
    onRemoteDelete: ctx.onRemoteDelete,
    samples: ctx.samples.list(),
    now,
    token: ctx.actions ? ctx.csrf.token : null,
  });
}
