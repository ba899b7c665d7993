/**
 * Status and details of a document both sides still have (docs/sync-decision-table.md, rows
 * 20–27).
 */
import { statusFields } from './apply-action-result.js';
import type { LocalChange } from './local-changes.js';
import type { Draft, PlanContext } from './plan-context.js';
import type { RemoteChange } from './remote-changes.js';
import { serviceTimeToLocalMs } from './timestamps.js';
import type { BaseDocument, RemoteDocument } from './types.js';

type StatusEdit = Extract<LocalChange, { kind: 'status-edited' }>;

/** `replaces`: the service's newer status record the edit wins over (row 23). */
function pushStatus(
  row: number,
  folder: string,
  edit: StatusEdit,
  replaces?: { readonly id: string } | null,
): Draft {
  return {
    kind: 'push-status',
    row,
    folder,
    statusTypeId: edit.statusTypeId,
    statusName: edit.statusName,
    effectiveDate: edit.effectiveDate,
    ...(replaces !== undefined ? { replacesStatusId: replaces?.id ?? null } : {}),
  };
}

/** The service's change time in local ms, for "the newer change wins". */
export function remoteChangedAtMs(ctx: PlanContext, remote: RemoteDocument): number {
  return serviceTimeToLocalMs(remote.lastUpdatedTimestamp, ctx.policy.clockOffsetMs);
}

export function planStatus(
  ctx: PlanContext,
  folder: string,
  local: readonly LocalChange[],
  remote: readonly RemoteChange[],
  remoteDoc: RemoteDocument | undefined,
): Draft[] {
  const pulled = remote.find((c) => c.kind === 'remote-status');
  if (ctx.statusPushesWait) return planWaitingStatus(folder, local, pulled);
  const drafts: Draft[] = [];
  const unknown = local.find((c) => c.kind === 'status-unknown');
  const edit = local.find((c): c is StatusEdit => c.kind === 'status-edited');
  if (unknown) {
    drafts.push({
      kind: 'record-problem',
      row: 25,
      folder,
      problem: 'unknown-status',
      message: `"${unknown.statusName}" is not a status type of the service; nothing pushed`,
    });
  }
  if (pulled && !edit) drafts.push({ kind: 'pull-status', row: 21, folder, status: pulled.status });
  if (edit && !pulled) drafts.push(pushStatus(20, folder, edit));
  if (!edit || !pulled || !remoteDoc) return drafts;
  if (pulled.status?.typeId === edit.statusTypeId) {
    // row 22: the same change on both sides is no conflict; remember the service's record.
    drafts.push({ kind: 'update-base', row: 22, patch: statusFields(pulled.status) });
  } else if (edit.changedAtMs !== null && edit.changedAtMs > remoteChangedAtMs(ctx, remoteDoc)) {
    // row 23: the local edit is newer; the service keeps the status it replaces in its history.
    const detail = `status set on both sides: the folder's "${edit.statusName}" is newer than the service's "${pulled.status?.type ?? 'none'}" and was pushed`;
    const subject = { kind: 'status', lost: pulled.status?.type ?? null } as const;
    drafts.push({
      ...pushStatus(23, folder, edit, pulled.status),
      conflict: { winner: 'local', detail, subject },
    });
  } else {
    // row 24: the service's change is newer, or as new, or the edit time is unknown.
    const detail = `status set on both sides: the service's "${pulled.status?.type ?? 'none'}" is newer than (or as new as) the folder's "${edit.statusName}", which was not pushed`;
    drafts.push({
      kind: 'pull-status',
      row: 24,
      folder,
      status: pulled.status,
      conflict: { winner: 'remote', detail, subject: { kind: 'status', lost: edit.statusName } },
    });
  }
  return drafts;
}

/**
 * Row 55: the service's status types were never read, so a status typed in the folder is not
 * pushed: a name docsync does not know may still be one of the service's. The edit stays in
 * the folder (row 29) and the document in error until a cycle can read the types. A status the
 * service changed meanwhile is pulled as in row 24: the folder's edit is the losing side, kept
 * in the conflict log, since it could not go out to compete.
 */
function planWaitingStatus(
  folder: string,
  local: readonly LocalChange[],
  pulled: Extract<RemoteChange, { kind: 'remote-status' }> | undefined,
): Draft[] {
  const typed = local.find(
    (c): c is StatusEdit | Extract<LocalChange, { kind: 'status-unknown' }> =>
      c.kind === 'status-edited' || c.kind === 'status-unknown',
  );
  if (!typed)
    return pulled ? [{ kind: 'pull-status', row: 21, folder, status: pulled.status }] : [];
  const name = typed.statusName;
  if (typed.kind === 'status-edited' && pulled?.status?.typeId === typed.statusTypeId) {
    // Row 22 whatever the wait: the service already shows what the folder asks for.
    return [{ kind: 'update-base', row: 22, patch: statusFields(pulled.status) }];
  }
  if (pulled) {
    const detail = `status set on both sides while status pushes wait: the service's "${pulled.status?.type ?? 'none'}" was pulled, the folder's "${name}" was not pushed`;
    return [
      {
        kind: 'pull-status',
        row: 55,
        folder,
        status: pulled.status,
        conflict: { winner: 'remote', detail, subject: { kind: 'status', lost: name } },
      },
    ];
  }
  return [
    {
      kind: 'record-problem',
      row: 55,
      folder,
      problem: 'status-push-waits',
      message: `"${name}" is not pushed yet: the service's status types could not be read, so docsync cannot tell which type it names; it is pushed once they can be`,
    },
  ];
}

/** Rows 26 and 27: the service's name/date, and its timestamp, reach the folder and the base. */
export function planDetails(
  doc: BaseDocument,
  folder: string,
  remote: readonly RemoteChange[],
  remoteDoc: RemoteDocument | undefined,
): Draft[] {
  const drafts: Draft[] = [];
  const details = remote.find((c) => c.kind === 'remote-details');
  if (details) {
    drafts.push({
      kind: 'pull-details',
      row: 26,
      folder,
      name: details.name,
      documentDate: details.documentDate,
    });
  }
  if (remoteDoc && remoteDoc.lastUpdatedTimestamp !== doc.lastUpdatedTimestamp) {
    drafts.push({
      kind: 'update-base',
      row: 27,
      patch: { lastUpdatedTimestamp: remoteDoc.lastUpdatedTimestamp },
    });
  }
  return drafts;
}
