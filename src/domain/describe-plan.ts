/**
 * A plan as sentences, one per action, for `--dry-run` and the log
 * ("row 20: push status DOCUMENT PREPARED of document 1075468 (Trustee Minutes…)").
 */
import type { SyncAction, SyncActionKind, SyncPlan } from './sync-actions.js';

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

/** What a plan moves, by direction: the verb, where, and each kind's noun. */
const DIRECTIONS: readonly {
  readonly verb: string;
  readonly where: string;
  readonly kinds: readonly (readonly [SyncActionKind, Noun])[];
}[] = [
  {
    verb: 'pull',
    where: '',
    kinds: [
      ['pull-new-document', 'new document'],
      ['pull-attachment', 'file'],
      ['restore-system-attachment', 'file'],
      ['pull-status', 'status'],
      ['pull-details', 'details'],
    ],
  },
  {
    verb: 'push',
    where: '',
    kinds: [
      ['push-new-document', 'new document'],
      ['push-attachment', 'file'],
      ['push-replaced-attachment', 'file'],
      ['push-status', 'status'],
    ],
  },
  {
    verb: 'delete',
    where: ' in the service',
    kinds: [
      ['push-delete-document', 'document'],
      ['push-delete-attachment', 'file'],
    ],
  },
  {
    verb: 'delete',
    where: ' locally',
    kinds: [
      ['trash-local-document', 'document'],
      ['trash-local-attachment', 'file'],
    ],
  },
  { verb: 'restore', where: '', kinds: [['restore-document', 'document']] },
];

type Noun = 'new document' | 'document' | 'file' | 'status' | 'details' | 'conflict' | 'problem';

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
  const parts = DIRECTIONS.flatMap(({ verb, where, kinds }) => {
    const byNoun = new Map<Noun, number>();
    for (const [kind, noun] of kinds)
      byNoun.set(noun, (byNoun.get(noun) ?? 0) + (plan.summary[kind] ?? 0));
    const items = [...byNoun].filter(([, n]) => n > 0).map(([noun, n]) => counted(n, noun));
    return items.length === 0 ? [] : [`${verb} ${items.join(', ')}${where}`];
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
