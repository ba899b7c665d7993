/**
 * A plan as sentences, one per action, for `--dry-run` and the log
 * ("row 20: push status DOCUMENT PREPARED of document 1075468 (Trustee Minutes…)"), and its
 * summary line. These say what will happen, with ids and rows, for a person checking a plan
 * before anything runs; describe-done.ts says what did happen, by the names of the files.
 */
import { type ActionDirection, type Moved, movementOf } from './action-direction.js';
import { assertNever } from './assert-never.js';
import type { SyncAction, SyncPlan } from './sync-actions.js';

function shorten(name: string, max = 40): string {
  return name.length <= max ? name : `${name.slice(0, max - 1)}…`;
}

function subject(a: SyncAction): string {
  const doc = a.documentId === null ? 'new document' : `document ${a.documentId}`;
  return `${doc} (${shorten(a.documentName)})`;
}

function what(a: SyncAction): string {
  switch (a.kind) {
    case 'pull-new-document':
      return `download new ${subject(a)} with ${a.files.length} attachment(s)`;
    case 'pull-attachment':
      return `download attachment ${a.attachment.id} as "${a.file}" into ${subject(a)}`;
    case 'pull-status':
      return `take status ${a.status?.type ?? '(none)'} of ${subject(a)} from the service`;
    case 'pull-details':
      return `take name "${a.name}" and date ${a.documentDate} of ${subject(a)} from the service`;
    case 'push-new-document':
      return `create ${subject(a)} dated ${a.documentDate} from folder "${a.folder}" and upload ${a.files.length} file(s)`;
    case 'push-attachment':
      return `upload "${a.file.name}" to ${subject(a)}`;
    case 'push-replaced-attachment':
      return `upload new content of "${a.file.name}" to ${subject(a)}, then delete attachment ${a.replacesAttachmentId}`;
    case 'push-delete-attachment':
      return `delete attachment ${a.attachmentId} ("${a.file}") of ${subject(a)} in the service`;
    case 'push-status':
      return `push status ${a.statusName} of ${subject(a)}, effective ${a.effectiveDate}`;
    case 'push-delete-document':
      return `delete ${subject(a)} in the service`;
    case 'trash-local-attachment':
      return `move "${a.file}" of ${subject(a)} to the trash`;
    case 'trash-local-document':
      return `${a.mode === 'trash' ? 'move to the trash' : 'delete'} folder "${a.folder}" of ${subject(a)} (${a.source})`;
    case 'keep-conflict-copy':
      return `keep "${a.file}" of ${subject(a)} as "${a.copyName}"`;
    case 'restore-system-attachment':
      return `restore system attachment "${a.file}" of ${subject(a)}${a.keepEditAs ? `, keeping the edit as "${a.keepEditAs}"` : ''}`;
    case 'move-base-folder':
      return `remember ${subject(a)} moved from "${a.from}" to "${a.to}"`;
    case 'restore-document':
      return a.side === 'local'
        ? `download ${subject(a)} again: changed in the service, deleted locally`
        : a.putBack
          ? `create ${subject(a)} again from "${a.folder}", a new document: the folder was put back after docsync deleted it in the service`
          : `create ${subject(a)} again from "${a.folder}": changed locally, deleted in the service`;
    case 'adopt-local-folder':
      return `adopt folder "${a.folder}" for ${subject(a)}`;
    case 'write-document-meta':
      return `write .document.json of ${subject(a)} again`;
    case 'forget-document':
      return `forget ${subject(a)}: deleted on both sides`;
    case 'update-base':
      return `remember the agreed state of ${subject(a)}`;
    case 'record-problem':
      return `problem with ${a.folder ? `"${a.folder}"` : subject(a)}: ${a.message}`;
  }
}

/** One line per action. */
export function describePlan(plan: SyncPlan): string[] {
  return plan.actions.map((a) => `row ${a.row}: ${what(a)}`);
}

/** The summary's groups, in the order it says them: the verb, and where. */
const GROUPS = {
  pull: ['pull', ''],
  push: ['push', ''],
  'delete in the service': ['delete', ' in the service'],
  'delete locally': ['delete', ' locally'],
  restore: ['restore', ''],
} as const;
type Group = keyof typeof GROUPS;

/** What each group counts, in the order it says them. */
const MOVED_ORDER: readonly Moved[] = ['new document', 'document', 'file', 'status', 'details'];

/** The summary's group of an action that moves something (action-direction.ts). */
function groupOf(action: SyncAction, direction: ActionDirection): Group | null {
  // Before it runs, a restore is news of its own to the plan's reader: a document one side
  // deleted comes back. Once done, the log line says where it went ("pulled … again").
  if (action.kind === 'restore-document') return 'restore';
  switch (direction) {
    case 'pulled':
      return 'pull';
    case 'pushed':
      return 'push';
    case 'deleted-in-service':
      return 'delete in the service';
    case 'trashed-locally':
    case 'deleted-locally':
      return 'delete locally';
    case 'conflict':
      return null; // counted with every action that settles a conflict
    default:
      return assertNever(direction);
  }
}

type Noun = Moved | 'conflict' | 'problem';

/** "3 files", "1 status", "2 statuses". */
function counted(n: number, noun: Noun): string {
  if (n === 1 || noun === 'details') return `${n} ${noun}`;
  return `${n} ${noun === 'status' ? 'statuses' : `${noun}s`}`;
}

/**
 * The plan's log line, the entity's name first and each change with its direction: "Acme Pty
 * Ltd: pull 2 new documents, 1 file; push 1 status; delete 1 file in the service", or "…: in
 * sync".
 */
export function summaryLine(plan: SyncPlan, entityName = `${plan.owner.kind} ${plan.owner.id}`) {
  const counts = new Map<Group, Map<Moved, number>>();
  for (const action of plan.actions) {
    const movement = movementOf(action);
    const group = movement && groupOf(action, movement.direction);
    if (!movement || !group) continue;
    const byMoved = counts.get(group) ?? new Map<Moved, number>();
    counts.set(group, byMoved.set(movement.moved, (byMoved.get(movement.moved) ?? 0) + 1));
  }
  const parts = (Object.keys(GROUPS) as Group[]).flatMap((group) => {
    const byMoved = counts.get(group);
    if (!byMoved) return [];
    const [verb, where] = GROUPS[group];
    const items = MOVED_ORDER.flatMap((moved) => {
      const n = byMoved.get(moved);
      return n ? [counted(n, moved)] : [];
    });
    return [`${verb} ${items.join(', ')}${where}`];
  });
  const conflicts = plan.actions.filter((a) => a.conflict).length;
  const problems = plan.summary['record-problem'] ?? 0;
  const others = [
    ...(conflicts > 0 ? [counted(conflicts, 'conflict')] : []),
    ...(problems > 0 ? [counted(problems, 'problem')] : []),
  ];
  if (others.length > 0) parts.push(others.join(', '));
  return `${entityName}: ${parts.length ? parts.join('; ') : 'in sync'}`;
}
