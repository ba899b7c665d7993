/**
 * Recent changes, newest first, as Syncthing's "Recent Changes" and the Nextcloud client's
 * activity list show them: when (in the viewer's local time), which entity and document, the
 * direction, the file. The executor records them as actions complete (state/activity-repo.ts).
 */
import { describeChange } from '../domain/activity.js';
import type { ActivityRecord } from '../state/activity-repo.js';
import type { StatusPageQuery } from '../state/status-page-data.js';
import { ACTIVITY_SHOWN } from '../state/status-page-data.js';
import { type Html, html, table, timeOf } from './html.js';
import { pageHref } from './page-query.js';

export function activitySection(activity: readonly ActivityRecord[], query: StatusPageQuery): Html {
  const rows = activity.map((a) => [
    timeOf(a.at),
    a.entityName ?? `${a.owner.kind} ${a.owner.id}`,
    a.documentName,
    html`<span class="change ${a.change}">${describeChange(a.change)}</span>`,
    a.file,
    a.detail,
  ]);
  const oldest = activity.at(-1);
  const older =
    oldest && activity.length === ACTIVITY_SHOWN
      ? html`<a href="${pageHref(query, { activityBefore: oldest.id })}#activity">Older changes ›</a>`
      : html``;
  const newest =
    query.activityBefore === undefined
      ? html``
      : html`<a href="${pageHref(query, { activityBefore: undefined })}#activity">‹ Newest changes</a> `;
  return html`<section id="activity"><h2>Recent changes</h2>${table(
    ['When', 'Entity', 'Document', 'Change', 'File', 'Detail'],
    rows,
  )}<nav class="pager">${newest}${older}</nav></section>`;
}
