/**
 * The status page (`GET /`): the same facts as `docsync status`, for a browser, refreshing
 * itself every 10 s. Built from the state's `StatusReport`, the daemon's runtime facts and the
 * health verdict, so the page and `/healthz` never disagree.
 */
import type { StatusReport } from '../state/status-report.js';
import type { Health } from './health.js';
import { facts, fileLink, formatAge, Html, html, table } from './html.js';
import type { RuntimeStatus } from './runtime-status.js';

export interface StatusPageInput {
  readonly report: StatusReport;
  readonly runtime: RuntimeStatus;
  readonly health: Health;
  /** The store root, for `file://` links to conflict copies and failing paths. */
  readonly root: string;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#222}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
th{background:#f3f3f3}.ok{color:#176c2c}.bad{color:#b00020}.none{color:#777}`;

export function renderStatusPage(input: StatusPageInput): string {
  const { report } = input;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="10">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>docsync status</title><style>${new Html(STYLE)}</style></head>
<body>
<h1>docsync status</h1>
<p>Generated ${report.generatedAt}; this page refreshes every 10 s.</p>
${healthSection(input.health)}
${cycleSection(input)}
${entitySection(report)}
${pushSection(report)}
${conflictSection(report, input.root)}
${errorSection(report, input.root)}
${unmatchedSection(report)}
${notSyncedSection(report)}
</body></html>
`.text;
}

function healthSection(health: Health): Html {
  if (health.healthy) return html`<p class="ok" id="health"><strong>Healthy</strong></p>`;
  const reasons = health.reasons.map((r) => html`<li>${r}</li>`);
  return html`<div class="bad" id="health"><strong>Unhealthy</strong><ul>${reasons}</ul></div>`;
}

function cycleSection({ report, runtime }: StatusPageInput): Html {
  const last = report.lastCycle;
  const lastText = last
    ? `${last.result ?? 'running'} (${last.trigger}), started ${last.startedAt}${
        last.finishedAt ? `, finished ${last.finishedAt}` : ''
      }${last.error ? ` — ${last.error}` : ''}`
    : 'none yet';
  const rows: [string, string | number][] = [
    ['Last cycle', lastText],
    ['Last successful cycle', report.lastSuccessfulCycle?.finishedAt ?? 'none yet'],
    ['Next cycle', runtime.nextCycleAt ?? 'not scheduled'],
    ['Initial sync', report.initialSyncDone ? 'done' : 'not done yet (the first run is pull-only)'],
    ['Request queue', runtime.queueDepth],
    ['Request rate', `${runtime.requestsPerSecond.toFixed(1)} / s`],
    ['Folder watcher', runtime.watcherMode],
    ...(runtime.folderMode ? [['Folder', runtime.folderMode] as [string, string]] : []),
    ['Service token', runtime.tokenValid ? 'valid' : 'NOT VALID — run docsync auth login'],
    ['Pending webhook events', report.pendingWebhookEvents],
  ];
  return html`<h2>Sync</h2>${facts(rows)}${workSection(runtime, report)}`;
}

/** The scheduler's lanes (issue 16): what waits in each, how long its requests waited. */
function workSection(runtime: RuntimeStatus, report: StatusReport): Html {
  const work = runtime.work;
  if (!work) return html``;
  const lanes = Object.entries(work.lanes);
  const totalStarted = lanes.reduce((n, [, l]) => n + l.requestsStarted, 0);
  const rows = lanes.map(([lane, l]) => [
    lane,
    l.syncsWaiting,
    l.requestsWaiting,
    l.requestsStarted,
    l.requestsStarted === 0 ? '-' : `${Math.round(l.requestsWaitedMs / l.requestsStarted)} ms`,
    totalStarted === 0 ? '-' : `${Math.round((100 * l.requestsStarted) / totalStarted)} %`,
  ]);
  const stalest = report.entities.reduce<number | null>(
    (worst, e) => Math.max(worst ?? 0, e.lagMs ?? Number.POSITIVE_INFINITY),
    null,
  );
  const round = work.round
    ? `${work.round.left} entities left${work.round.full ? ' (full listings)' : ''}`
    : 'none under way';
  return html`<h3>Work</h3>${facts([
    ['Poll round', round],
    ['Coverage period', formatAge(work.coveragePeriodMs)],
    ['Stalest entity', stalest === Number.POSITIVE_INFINITY ? 'never synced' : formatAge(stalest)],
    ['Hot entities', work.hotEntities],
    ['Syncs running', work.syncsRunning],
  ])}${table(
    ['Lane', 'Syncs waiting', 'Requests waiting', 'Requests sent', 'Average wait', 'Share'],
    rows,
  )}`;
}

function entitySection(report: StatusReport): Html {
  const rows = report.entities.map((e) => [
    e.owner.kind,
    e.owner.id,
    e.name,
    e.folder,
    e.cursor ?? '-',
    e.lastSuccessAt ?? 'never',
    formatAge(e.lagMs),
    e.lastError,
  ]);
  const headers = ['Kind', 'Id', 'Name', 'Folder', 'Cursor', 'Last sync', 'Lag', 'Last error'];
  return html`<h2>Entities (${report.entities.length})</h2>${table(headers, rows)}`;
}

function pushSection(report: StatusReport): Html {
  const p = report.pushes;
  const rows = p.failedItems.map((f) => [
    f.kind,
    `${f.owner.kind} ${f.owner.id}`,
    f.documentId,
    f.attempts,
    f.lastError,
    f.nextAttemptAt,
  ]);
  const headers = ['Push', 'Owner', 'Document', 'Attempts', 'Last error', 'Next attempt'];
  return html`<h2>Pending pushes</h2>
<p>${p.pending} pending, ${p.inDoubt} in doubt, ${p.failed} failed.</p>${table(headers, rows)}`;
}

function conflictSection(report: StatusReport, root: string): Html {
  const rows = report.conflicts.recent.map((c) => [
    c.occurredAt,
    `${c.owner.kind} ${c.owner.id}`,
    c.documentId,
    fileLink(root, c.copyPath),
    `${c.winner} won`,
  ]);
  const headers = ['When', 'Owner', 'Document', 'Conflict copy', 'Winner'];
  return html`<h2>Conflicts (${report.conflicts.total})</h2>${table(headers, rows)}`;
}

function errorSection(report: StatusReport, root: string): Html {
  const rows = report.itemsInError.map((i) => [
    `${i.owner.kind} ${i.owner.id}`,
    i.documentId,
    i.path === null ? null : fileLink(root, i.path),
    i.reason,
    i.attempts,
    i.nextAttemptAt,
  ]);
  const headers = ['Owner', 'Document', 'Path', 'Reason', 'Attempts', 'Next attempt'];
  return html`<h2>Items in error (${report.itemsInError.length})</h2>${table(headers, rows)}`;
}

function unmatchedSection(report: StatusReport): Html {
  const rows = report.unmatchedFolders.map((u) => [u.folder, u.kind, u.reason]);
  return html`<h2>Unmatched local folders (${report.unmatchedFolders.length})</h2>${table(
    ['Folder', 'Kind', 'Reason'],
    rows,
  )}`;
}

/** Paths as docsync shows them (escaped when not UTF-8), so text rather than `file://` links. */
function notSyncedSection(report: StatusReport): Html {
  const rows = report.notSynced.map((n) => [n.path, n.reason, n.firstSeenAt]);
  return html`<h2 id="not-synced">Not synced (${report.notSynced.length})</h2>${table(
    ['Path', 'Reason', 'Since'],
    rows,
  )}`;
}
