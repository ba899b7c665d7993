/**
 * What `run --once` says when it ends: a few lines for a person (duration, then pulled, pushed,
 * deleted, conflicts and errors, each with its count), or one JSON object for a script
 * (`--json`). Both only show the engine's report (cycle-report.ts), which does the counting.
 */
import { isNoteOnly } from '../domain/folder-notes.js';
import type { CycleReport } from '../engine/cycle-report.js';

const OUTCOME: Readonly<Record<CycleReport['result'], string>> = {
  ok: 'in sync',
  partial: 'finished with items in error',
  interrupted: 'interrupted; the next run takes up the rest',
  'safety-stop': 'stopped by a safety rail',
};

/**
 * docsync: in sync after 1 min 12 s (208 entities)
 *   pulled       37   12.4 MB
 *   ...
 */
export function summaryText(report: CycleReport, durationMs: number): string {
  const { counts } = report;
  const exit = report.exitCode === 0 ? '' : `, exit ${report.exitCode}`;
  const rows: [string, number, string][] = [
    ['pulled', counts.pulled, counts.bytesPulled > 0 ? formatBytes(counts.bytesPulled) : ''],
    ['pushed', counts.pushed, counts.bytesPushed > 0 ? formatBytes(counts.bytesPushed) : ''],
    ['deleted', counts.deleted, ''],
    ['conflicts', counts.conflicts, ''],
    ['errors', report.documentsFailed, ''],
    // Only when there are some: a company or trust docsync could not read (`docsync status`).
    ...(report.recordsInError > 0
      ? [
          ['skipped', report.recordsInError, 'records of the service in error'] as [
            string,
            number,
            string,
          ],
        ]
      : []),
    // Only a stopped run leaves anything; it is no error, and the next run takes it.
    ...(report.result === 'interrupted'
      ? [['left', report.left.documents, leftEntities(report)] as [string, number, string]]
      : []),
  ];
  const width = Math.max(...rows.map(([, n]) => String(n).length));
  const lines = rows.map(([label, n, extra]) =>
    `  ${label.padEnd(10)}${String(n).padStart(width)}${extra ? `   ${extra}` : ''}`.trimEnd(),
  );
  const entities = `${report.entities} ${report.entities === 1 ? 'entity' : 'entities'}`;
  return `docsync: ${OUTCOME[report.result]} after ${formatDuration(durationMs)} (${entities}${exit})\n${lines.join('\n')}\n`;
}

/** "and 12 entities not reached", beside the documents a stop left. */
function leftEntities(report: CycleReport): string {
  const n = report.left.entities;
  return n === 0 ? '' : `and ${n} ${n === 1 ? 'entity' : 'entities'} not reached`;
}

/** The same in one line, for the log: "run finished: in sync after 42 s: pulled 3, pushed 1, …". */
export function summaryLogLine(report: CycleReport, durationMs: number): string {
  const { counts } = report;
  const tally = [
    `pulled ${counts.pulled}`,
    `pushed ${counts.pushed}`,
    `deleted ${counts.deleted}`,
    `conflicts ${counts.conflicts}`,
    `errors ${report.documentsFailed}`,
    ...(report.recordsInError > 0 ? [`records skipped ${report.recordsInError}`] : []),
    ...(report.result === 'interrupted'
      ? [`left ${report.left.documents} documents, ${report.left.entities} entities`]
      : []),
  ].join(', ');
  return `run finished: ${OUTCOME[report.result]} after ${formatDuration(durationMs)}: ${tally}`;
}

/**
 * What the state lists after the run besides its counts, as `docsync status --json` shows it:
 * folders that match nothing, entries that are not synced. The run's summary says them too, so
 * a script never reads "nothing unmatched" while `status` lists one.
 */
export interface Unsaid {
  readonly unmatchedFolders: readonly {
    readonly folder: string;
    readonly kind: string;
    readonly reason: string;
  }[];
  readonly notSynced: readonly { readonly path: string; readonly reason: string }[];
}

/**
 * "1 folder matches nothing in the service and 2 entries are not synced", or null for none.
 * Notes nobody has to act on (a renamed folder, a kept edit) are listed, not announced.
 */
export function unsaidSentence(unsaid: Unsaid): string | null {
  const u = unsaid.unmatchedFolders.length;
  const n = unsaid.notSynced.filter((e) => !isNoteOnly(e.reason)).length;
  const parts = [
    u > 0 ? `${u} ${u === 1 ? 'folder matches' : 'folders match'} nothing in the service` : '',
    n > 0 ? `${n} ${n === 1 ? 'entry is' : 'entries are'} not synced` : '',
  ].filter(Boolean);
  return parts.length === 0
    ? null
    : `docsync: ${parts.join(' and ')}; \`docsync status\` lists them with the reason`;
}

/** `run --once --json`: the run's outcome and counts, one object on stdout. */
export function summaryJson(report: CycleReport, durationMs: number, unsaid: Unsaid) {
  return {
    result: report.result,
    exitCode: report.exitCode,
    durationMs,
    entities: report.entities,
    actions: report.actions,
    ...report.counts,
    errors: report.documentsFailed,
    recordsInError: report.recordsInError,
    left: report.left,
    rails: report.tripped,
    unmatchedFolders: unsaid.unmatchedFolders,
    notSynced: unsaid.notSynced,
    settling: report.settling,
  };
}

/** "840 B", "12.4 MB": decimal units, as file managers show sizes. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** "0.4 s", "42 s", "1 min 12 s", "2 h 5 min". */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
