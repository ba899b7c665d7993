/**
 * The status page (`GET /`), built for a firm of thousands of entities: who runs (version,
 * uptime, store root) and whether it is healthy, then the problems that need a person, one page
 * of entities (searched, filtered, sorted on the server), the recent changes, the request rate
 * and lanes as charts, and the cycle facts. Built from the state's `StatusPageData`, the
 * daemon's runtime facts and the health verdict, so the page and `/healthz` never disagree.
 */
import type { AdviceForm } from '../domain/advice-form.js';
import type { LocalDeleteMode } from '../operator/held-deletes.js';
import type { StatusPageData, StatusPageQuery } from '../state/status-page-data.js';
import { attentionTotal } from './attention.js';
import type { Health } from './health.js';
import { formatAge, Html, html, timeOf } from './html.js';
import { activitySection } from './page-activity.js';
import { REFRESH_SECONDS, SCRIPT, STYLE } from './page-assets.js';
import { entitiesSection } from './page-entities.js';
import { problemsSection } from './page-problems.js';
import { chartsSection, syncSection } from './page-work.js';
import type { RuntimeStatus } from './runtime-status.js';
import type { Sample } from './samples.js';

export interface StatusPageInput {
  /** How docsync's commands are named on the page (status-server.ts). */
  readonly advice: AdviceForm;
  readonly data: StatusPageData;
  readonly query: StatusPageQuery;
  readonly runtime: RuntimeStatus;
  readonly health: Health;
  /** The store root, for `file://` links to conflict copies and failing paths. */
  readonly root: string;
  /** `onRemoteDelete`, for what approving a held delete does. */
  readonly onRemoteDelete: LocalDeleteMode;
  readonly samples: readonly Sample[];
  readonly now: number;
  /** The CSRF token for the action buttons; null draws none (nothing to act with). */
  readonly token: string | null;
}

export function renderStatusPage(input: StatusPageInput): string {
  const { data, query, now, token } = input;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<noscript><meta http-equiv="refresh" content="${REFRESH_SECONDS}"></noscript>
${token === null ? '' : html`<meta name="csrf-token" content="${token}">`}
<title>docsync status</title><style>${new Html(STYLE)}</style></head>
<body>
<h1>docsync status</h1>
${about(input)}
${healthSection(input.health)}
<p id="notice" role="status" aria-live="polite"></p>
${problemsSection({ data, root: input.root, token, onRemoteDelete: input.onRemoteDelete, advice: input.advice })}
${entitiesSection({ page: data.entities, query, now, token })}
${activitySection(data.activity, query)}
${chartsSection(input)}
${syncSection(input)}
<script>${new Html(SCRIPT)}</script>
</body></html>
`.text;
}

function about({ runtime, root, now }: StatusPageInput): Html {
  const daemon = runtime.daemon;
  const who = daemon
    ? html`docsync ${daemon.version}, up ${formatAge(now - daemon.startedAt)} (since ${timeOf(daemon.startedAt)})`
    : html`docsync`;
  return html`<p id="about">${who} · store <code>${root}</code> · page of ${timeOf(now)}</p>`;
}

/**
 * The header says what a person must know first: "Cannot sync" with why, and
 * "Needs attention (N)" whenever anything waits for a person, each kind linked to its list
 * below; "Healthy" only when neither is so. It used to say "Healthy" in green over two
 * conflicts and an item in error.
 */
function healthSection(health: Health): Html {
  const { attention } = health;
  const total = attentionTotal(attention);
  const down = health.healthy
    ? html``
    : html`<strong>Cannot sync</strong><ul>${health.reasons.map((r) => html`<li>${r}</li>`)}</ul>`;
  const waiting =
    total === 0
      ? html``
      : html`<strong>Needs attention (${total})</strong><ul>${attention.map(
          (a) => html`<li><a href="#${a.section}">${a.says}</a></li>`,
        )}</ul>`;
  if (health.healthy && total === 0)
    return html`<p class="ok" id="health"><strong>Healthy</strong></p>`;
  return html`<div class="bad" id="health">${down}${waiting}</div>`;
}
