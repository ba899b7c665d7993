/**
 * How the daemon works, below the problems and the entities: the request rate against its
 * budget and the lanes' queues over the last hour (charts: a trend says more than a number), the
 * scheduler's lanes now, and the cycle facts.
 */
import { type AdviceForm, adviceCommand } from '../domain/advice-form.js';
import { LANES, type Lane } from '../domain/lanes.js';
import { ownerKey } from '../domain/owner-key.js';
import { entityLabel, plural } from '../domain/words.js';
import type { StatusPageData } from '../state/status-page-data.js';
import { lineChart } from './charts.js';
import { facts, formatAge, type Html, html, table, timeOf } from './html.js';
import type { RuntimeStatus, WorkStatus } from './runtime-status.js';
import { SAMPLE_EVERY_MS, SAMPLES_KEPT, type Sample } from './samples.js';

const LANE_COLOURS: Readonly<Record<Lane, string>> = {
  push: '#b00020',
  webhook: '#1f5fbf',
  watcher: '#176c2c',
  poll: '#777777',
};

export interface WorkInput {
  readonly data: StatusPageData;
  readonly runtime: RuntimeStatus;
  readonly samples: readonly Sample[];
  readonly now: number;
  /** How docsync's commands are named (domain/advice-form.ts). */
  readonly advice: AdviceForm;
}

export function chartsSection({ runtime, samples, now }: WorkInput): Html {
  const times = samples.map((s) => s.at);
  const span = { end: now, spanMs: SAMPLES_KEPT * SAMPLE_EVERY_MS };
  const budget = runtime.requestBudgetPerSecond;
  const use =
    budget === undefined
      ? ''
      : `, ${Math.round((100 * runtime.requestsPerSecond) / budget)} % of the budget`;
  const rate = lineChart({
    title: 'Requests to the service per second',
    now: `now ${runtime.requestsPerSecond.toFixed(1)} / s${use}`,
    unit: '/ s',
    times,
    series: [
      {
        label: 'requests per second',
        color: '#1f5fbf',
        values: samples.map((s) => s.requestsPerSecond),
      },
      ...(budget === undefined
        ? []
        : [
            {
              label: `budget (queue.requestsPerSecond = ${budget})`,
              color: '#b00020',
              dashed: true,
              values: samples.map((s) => s.budget),
            },
          ]),
    ],
    ...span,
  });
  const lanes = runtime.work
    ? lineChart({
        title: 'Work waiting in each lane (syncs and requests)',
        now: `now ${LANES.map((l) => `${l} ${waitingIn(runtime, l)}`).join(', ')}`,
        unit: '',
        times,
        series: LANES.map((lane) => ({
          label: lane,
          color: LANE_COLOURS[lane],
          values: samples.map((s) => s.waiting?.[lane] ?? null),
        })),
        ...span,
      })
    : html``;
  return html`<section id="charts"><h2>Requests and lanes, last hour</h2><div class="charts">${rate}${lanes}</div></section>`;
}

function waitingIn(runtime: RuntimeStatus, lane: Lane): number {
  const l = runtime.work!.lanes[lane];
  return l.syncsWaiting + l.requestsWaiting;
}

export function syncSection({ data, runtime, now, advice }: WorkInput): Html {
  const last = data.lastCycle;
  const lastText = last
    ? html`${last.result ?? 'running'} (${last.trigger}), started ${timeOf(Date.parse(last.startedAt))}${
        last.finishedAt ? html`, finished ${timeOf(Date.parse(last.finishedAt))}` : ''
      }${last.error ? ` — ${last.error}` : ''}`
    : 'none yet';
  const good = data.lastSuccessfulCycle?.finishedAt;
  const rows: [string, Html | string | number][] = [
    ['Last cycle', lastText],
    ['Last successful cycle', good ? timeOf(Date.parse(good)) : 'none yet'],
    ['Next cycle', runtime.nextCycleAt ? timeOf(Date.parse(runtime.nextCycleAt)) : 'not scheduled'],
    ['Initial sync', data.initialSyncDone ? 'done' : 'not done yet (the first run is pull-only)'],
    ['Request queue', runtime.queueDepth],
    ['Request rate', rateText(runtime)],
    ['Folder watcher', runtime.watcherMode],
    ...(runtime.folderMode ? [['Folder', runtime.folderMode] as [string, string]] : []),
    [
      'Service token',
      runtime.tokenValid ? 'valid' : `NOT VALID — run ${adviceCommand(advice, 'auth login')}`,
    ],
    ['Pending webhook events', data.pendingWebhookEvents],
    ['Local changes waiting', localWorkText(data)],
    ['Syncs waiting', syncsWaitingText(data)],
  ];
  return html`<section id="sync"><h2>Sync</h2>${facts(rows)}${workSection({ data, runtime, now })}</section>`;
}

/** What was sent, and what the governor allows: below the ceiling after 429s, until it climbs back. */
function rateText({ requestsPerSecond, governor }: RuntimeStatus): string {
  const sent = `${requestsPerSecond.toFixed(1)} / s`;
  if (!governor || !Number.isFinite(governor.ceiling)) return sent;
  const allowed = `allowed ${governor.rate.toFixed(1)} of ${governor.ceiling} (queue.requestsPerSecond)`;
  return `${sent}; ${allowed}; ${plural(governor.throttles, 'answer')} 429 since the start`;
}

/** Entities this many or fewer are named in "Local changes waiting". */
const LOCAL_WORK_NAMED = 5;

/**
 * Files a stop left in the folder, found at the start, are no pushes yet: counted here until
 * their entities' syncs end.
 */
function localWorkText({ localWork: work, names }: StatusPageData): Html | string {
  if (work.entities === 0) return 'none';
  const named =
    work.entities <= LOCAL_WORK_NAMED
      ? `: ${work.items.map((w) => `${entityLabel(w.owner, names.get(ownerKey(w.owner)))} ${plural(w.files, 'file')}`).join(', ')}`
      : '';
  return html`${plural(work.files, 'file')} in ${plural(work.documents, 'document')} of ${plural(work.entities, 'entity')}, found since ${timeOf(work.since === null ? null : Date.parse(work.since))}; each entity's sync sends them, in the watcher's lane${named}`;
}

/** A failing entity's sync is tried again on its own: the page says why it failed, and when. */
function syncsWaitingText({ syncsWaiting: work, names }: StatusPageData): Html | string {
  if (work.entities === 0) return 'none';
  const count = plural(work.entities, 'entity');
  if (work.failing.length === 0) return count;
  const failing = work.failing
    .slice(0, LOCAL_WORK_NAMED)
    .map(
      (f) =>
        html`${entityLabel(f.owner, names.get(ownerKey(f.owner)))} failed ${plural(f.attempts, 'time')}${f.lastError ? ` (${f.lastError})` : ''}, tried again at ${timeOf(Date.parse(f.nextAttemptAt))}; `,
    );
  return html`${count}, ${work.failingEntities} failing: ${failing}`;
}

/** How far the round under way has come: the entities it listed of its own, since when. */
function roundText(work: WorkStatus, now: number): string {
  const round = work.round;
  if (!round) return 'none under way';
  const how = round.full ? ' (full listings)' : '';
  const since = `started ${formatAge(now - round.startedAt)} ago`;
  return `${round.total - round.left} of ${round.total} entities listed${how}, ${since}`;
}

/**
 * The entity synced longest ago, and how long: within the coverage period while polling keeps
 * its promise (a failing entity is the usual reason it does not).
 */
function stalestText({ stalest }: StatusPageData, work: WorkStatus, now: number): string {
  if (stalest === null) return 'none';
  if (stalest.lastSuccessAt === null) return `${stalest.name}: never synced`;
  const age = now - stalest.lastSuccessAt;
  const over = age > work.coveragePeriodMs ? ', longer than the coverage period' : '';
  return `${stalest.name}: last synced ${formatAge(age)} ago${over}`;
}

/** The scheduler's lanes: what waits in each, how long its requests waited. */
function workSection({ data, runtime, now }: Omit<WorkInput, 'samples' | 'advice'>): Html {
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
  return html`<h3>Work</h3>${facts([
    ['Poll round', roundText(work, now)],
    ['Coverage period', formatAge(work.coveragePeriodMs)],
    ['Stalest entity', stalestText(data, work, now)],
    ['Hot entities', work.hotEntities],
    ['Syncs running', work.syncsRunning],
  ])}${table(
    ['Lane', 'Syncs waiting', 'Requests waiting', 'Requests sent', 'Average wait', 'Share'],
    rows,
  )}`;
}
