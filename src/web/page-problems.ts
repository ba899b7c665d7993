/**
 * The top of the status page: what needs a person, in the order it matters. Deletes a safety
 * rail holds (nothing moves until someone decides), conflicts (two versions of one file), items
 * in error, failed pushes, then folders and entries docsync does not sync. Only lists that have
 * something are drawn; one line names the empty ones, so a healthy firm sees a short page.
 */
import { type AdviceForm, adviceCommand, inAdviceForm } from '../domain/advice-form.js';
import { ownerKey } from '../domain/owner-key.js';
import { type ConflictChoice, possibleChoices } from '../domain/plan-resolution.js';
import type { OwnerRef } from '../domain/types.js';
import {
  describeHeldDelete,
  type LocalDeleteMode,
  whatApprovingKeeps,
} from '../operator/held-deletes.js';
import type { StatusPageData } from '../state/status-page-data.js';
import { PROBLEMS_SHOWN } from '../state/status-page-data.js';
import { fileLink, type Html, html, postButton, table, timeOf } from './html.js';

export interface ProblemsInput {
  readonly data: StatusPageData;
  readonly root: string;
  /** Null: no buttons (no daemon to act). */
  readonly token: string | null;
  /** `onRemoteDelete`: whether an approved delete of a folder keeps it in the trash. */
  readonly onRemoteDelete: LocalDeleteMode;
  /** How docsync's commands are named (domain/advice-form.ts). */
  readonly advice: AdviceForm;
}

interface ProblemList {
  readonly id: string;
  readonly title: string;
  readonly total: number;
  readonly body: () => Html;
}

export function problemsSection(input: ProblemsInput): Html {
  const { data } = input;
  const lists: ProblemList[] = [
    {
      id: 'held',
      title: 'Held deletes',
      // Decided ones too until their sync carries them out, as `docsync status` counts them.
      total: data.held.waiting + data.held.decided,
      body: () => held(input),
    },
    {
      id: 'conflicts',
      title: 'Conflicts',
      total: data.conflicts.total,
      body: () => conflicts(input),
    },
    {
      id: 'errors',
      title: 'Items in error',
      total: data.itemsInError.total,
      body: () => itemsInError(input),
    },
    {
      id: 'records',
      title: 'Service records in error',
      total: data.recordsInError.length,
      body: () => recordsInError(input),
    },
    {
      id: 'pushes',
      title: 'Failed pushes',
      total: data.pushes.failed,
      body: () => failedPushes(input),
    },
    {
      id: 'unmatched',
      title: 'Unmatched local folders',
      total: data.unmatchedFolders.length,
      body: () => unmatched(input),
    },
    {
      id: 'not-synced',
      title: 'Not synced',
      total: data.notSynced.length,
      body: () => notSynced(input),
    },
  ];
  const shown = lists.filter((l) => l.total > 0);
  const empty = lists.filter((l) => l.total === 0).map((l) => l.title.toLowerCase());
  // The lists with something come first; the empty ones are named after them, in green only
  // when nothing at all is listed (a green "No held deletes…" over two conflicts misleads).
  const quiet =
    empty.length === 0
      ? html``
      : html`<p class="${shown.length === 0 ? 'ok' : 'none'}" id="no-problems">No ${empty.join(', ')}.</p>`;
  const sections = shown.map(
    (l) => html`<section id="${l.id}"><h3>${l.title} (${l.total})</h3>${l.body()}</section>`,
  );
  return html`<section id="problems"><h2>Problems</h2>${inHold(data)}${sections}${quiet}</section>`;
}

/**
 * Deletes of removed folders in their hold time (the daemon's `safety.deleteHoldSeconds`): not a
 * problem, nobody needs to act, but a person who just removed a folder sees why the document is
 * still in the service, and until when.
 */
function inHold(data: StatusPageData): Html {
  const { inHold: count, inHoldUntil: until } = data.held;
  if (count === 0 || until === null) return html``;
  const what = count === 1 ? 'A removed folder' : `${count} removed folders`;
  return html`<p id="in-hold">${what}: the delete in the service waits until ${timeOf(until)} (safety.deleteHoldSeconds), so that a mass delete is judged whole; putting a folder back cancels its delete.</p>`;
}

/** The entity's name, or its kind and id when the state does not know it (any more). */
export function entityLabel(names: ReadonlyMap<string, string>, owner: OwnerRef): string {
  return names.get(ownerKey(owner)) ?? `${owner.kind} ${owner.id}`;
}

/** "… and 120 more" under a list cut at PROBLEMS_SHOWN, with where to see them. */
function more(total: number, shown: number, where: Html | string): Html {
  return total > shown ? html`<p class="none">… and ${total - shown} more: ${where}.</p>` : html``;
}

/**
 * One row per delete waiting for a decision, an entity's together; its first row has the
 * entity's "Approve" button, and "Approve all" comes when several entities have some. Each button
 * carries what it shows (how many, the newest hold), so it approves those and no delete held
 * after the page was drawn. Decided ones are counted: their entity's next sync carries them out
 * (within seconds under the daemon).
 */
function held({ data, token, onRemoteDelete, advice }: ProblemsInput): Html {
  const h = data.held;
  let previous: string | null = null;
  const rows = h.waitingRows.map((d) => {
    const first = ownerKey(d.owner) !== previous;
    previous = ownerKey(d.owner);
    return [
      entityLabel(data.names, d.owner),
      d.documentName,
      describeHeldDelete(d, onRemoteDelete).would,
      timeOf(d.firstHeldAt),
      token === null || !first
        ? null
        : postButton(
            '/actions/approve-deletes',
            {
              kind: d.owner.kind,
              id: d.owner.id,
              count: String(d.entityWaiting),
              newest: String(d.entityNewest),
            },
            `Approve ${d.entityWaiting === 1 ? 'this delete' : `its ${d.entityWaiting} deletes`}`,
            token,
          ),
    ];
  });
  const reasons = [...new Set(h.waitingRows.map((d) => d.reason))];
  const all =
    token === null || h.entities < 2
      ? html``
      : html`<div class="acts">${postButton(
          '/actions/approve-deletes',
          { scope: 'all', count: String(h.waiting), newest: String(h.newest ?? 0) },
          `Approve all ${h.waiting} held deletes`,
          token,
        )}</div>`;
  const waiting =
    h.waiting === 0
      ? html``
      : html`<p>A safety rail stopped these deletes; nothing is deleted until someone approves them, here (the entity's sync then starts at once; ${whatApprovingKeeps(['local', 'remote'], onRemoteDelete)}) or with <code>${adviceCommand(advice, 'deletes approve')}</code>; <code>${adviceCommand(advice, 'deletes discard')}</code> keeps the documents instead.</p>${reasons.map(
          (r) => html`<p class="none">${r}</p>`,
        )}${all}${table(['Entity', 'Document', 'What it would do', 'Held since', ''], rows)}${more(
          h.waiting,
          rows.length,
          `${adviceCommand(advice, 'deletes')} lists them all`,
        )}`;
  const decided =
    h.decided === 0
      ? html``
      : html`<p id="held-decided">${h.decided} decided (approved or discarded): the next sync of ${h.decided === 1 ? 'its entity carries it' : 'their entities carries them'} out.</p>`;
  return html`${waiting}${decided}`;
}

function conflicts({ data, root, token, advice }: ProblemsInput): Html {
  const rows = data.conflicts.recent.map((c) => [
    timeOf(c.occurredAt),
    entityLabel(data.names, c.owner),
    fileLink(root, c.copyPath),
    `${c.winner === 'local' ? 'the local version' : "the service's version"} won${
      c.detail ? `: ${c.detail}` : ''
    }`,
    token === null
      ? null
      : html`<div class="acts">${possibleChoices(c.winner, c.subject).map((choice) =>
          postButton(
            '/actions/resolve-conflict',
            { conflict: String(c.id), resolution: choice },
            CHOICE_LABELS[choice],
            token,
          ),
        )}</div>`,
  ]);
  return html`${table(['When', 'Entity', 'Conflict copy', 'Winner', ''], rows)}${more(
    data.conflicts.total,
    data.conflicts.recent.length,
    `${adviceCommand(advice, 'conflicts')} lists them all`,
  )}`;
}

/** The buttons' words; the operator's refusals name them (OperatorError.onPage). */
const CHOICE_LABELS: Readonly<Record<ConflictChoice, string>> = {
  'keep-mine': 'Keep the local version',
  'keep-theirs': "Keep the service's version",
  'keep-both': 'Keep both',
};

function itemsInError({ data, root }: ProblemsInput): Html {
  const rows = data.itemsInError.items.map((p) => [
    entityLabel(data.names, p.owner),
    p.documentId,
    p.path === null ? null : fileLink(root, p.path),
    p.reason,
    p.attempts,
    timeOf(p.nextAttemptAt),
  ]);
  return html`${table(['Entity', 'Document', 'Path', 'Reason', 'Attempts', 'Next attempt'], rows)}${more(
    data.itemsInError.total,
    rows.length,
    html`<a href="/?show=errors">the entities with errors</a>`,
  )}`;
}

/** Companies and trusts the service sent that could not be read whole (record-errors-repo.ts). */
function recordsInError({ data, advice }: ProblemsInput): Html {
  const rows = data.recordsInError
    .slice(0, PROBLEMS_SHOWN)
    .map((r) => [
      r.level === 'error' ? 'not synced' : 'synced, with a warning',
      r.kind,
      r.id,
      r.reason,
      timeOf(r.firstSeenAt),
    ]);
  return html`${table(['What', 'Kind', 'Id', 'Reason', 'Since'], rows)}${more(
    data.recordsInError.length,
    rows.length,
    `${adviceCommand(advice, 'status')} lists them all`,
  )}`;
}

function failedPushes({ data, advice }: ProblemsInput): Html {
  const p = data.pushes;
  const rows = p.failedItems
    .slice(0, PROBLEMS_SHOWN)
    .map((f) => [
      f.kind,
      entityLabel(data.names, f.owner),
      f.documentId,
      f.attempts,
      f.lastError,
      f.nextAttemptAt ?? 'when a person has looked',
    ]);
  return html`<p>${p.pending} pending, ${p.inDoubt} in doubt, ${p.failed} failed.</p>${table(
    ['Push', 'Entity', 'Document', 'Attempts', 'Last error', 'Next attempt'],
    rows,
  )}${more(p.failed, rows.length, `${adviceCommand(advice, 'status --json')} lists them all`)}`;
}

function unmatched({ data, advice }: ProblemsInput): Html {
  const rows = data.unmatchedFolders
    .slice(0, PROBLEMS_SHOWN)
    // A reason may say what to run (`docsync run --once --adopt-local`).
    .map((u) => [u.folder, u.kind, inAdviceForm(u.reason, advice)]);
  return html`${table(['Folder', 'Kind', 'Reason'], rows)}${more(
    data.unmatchedFolders.length,
    rows.length,
    `${adviceCommand(advice, 'status')} lists them all`,
  )}`;
}

/** Paths as docsync shows them (escaped when not UTF-8), so text rather than `file://` links. */
function notSynced({ data, advice }: ProblemsInput): Html {
  const rows = data.notSynced
    .slice(0, PROBLEMS_SHOWN)
    .map((n) => [n.path, n.reason, timeOf(n.firstSeenAt)]);
  return html`${table(['Path', 'Reason', 'Since'], rows)}${more(
    data.notSynced.length,
    rows.length,
    `${adviceCommand(advice, 'status')} lists them all`,
  )}`;
}
