/**
 * Conflicts, for the operator (`docsync conflicts`, the status page):
 *
 *   listConflicts(deps, { all? })             → ConflictView[]    open ones, newest first (`all`: resolved too)
 *   openConflict(deps, id)                    → ConflictView      one conflict: where each version is
 *   conflictOwner(deps, id)                   → OwnerRef          whose lock resolving it takes
 *   resolveConflict(deps, lease, id, choice)  → ResolvedConflict  keep-mine | keep-theirs | keep-both
 *
 * "Mine" is the folder's version, "theirs" the service's. Resolving changes the folder only
 * (domain/plan-resolution.ts says how); the next sync carries it to the service, through the
 * trash and the rails like any change. An unknown or already resolved id, a choice that does not
 * fit, or a file that is no longer there throws OperatorError, and nothing is changed. Two
 * resolutions of one conflict at once: the first claims it, the second is refused. Resolving
 * takes the lease of the conflict's entity (operator-deps.ts), and refuses any other.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { entityDeepLink } from '../domain/deep-links.js';
import { OperatorError } from '../domain/errors.js';
import {
  type ConflictChoice,
  planResolution,
  type ResolutionStep,
} from '../domain/plan-resolution.js';
import type { ConflictSubject } from '../domain/sync-actions.js';
import type { OwnerRef } from '../domain/types.js';
import type { EntityLease } from '../engine/entity-locks.js';
import { DOCUMENT_META } from '../local/local-store.js';
import { resolveInside } from '../local/resolve-inside.js';
import type { ConflictRecord, ConflictResolution } from '../state/conflict-repo.js';
import { type OperatorDeps, syncWanted } from './operator-deps.js';

export interface VersionRef {
  /** Which version this is, in a few words. */
  readonly says: string;
  /** Absolute path of the file or folder that holds it; null when the folder does not have it. */
  readonly path: string | null;
}

export interface ConflictView {
  readonly id: number;
  readonly owner: OwnerRef;
  readonly documentId: string;
  /** The document's folder now, relative to the root. */
  readonly folder: string;
  /** What each side did, with the decision-table row. */
  readonly detail: string | null;
  readonly winner: 'local' | 'remote';
  /** Null for a conflict recorded before docsync kept what it was about. */
  readonly subject: ConflictSubject | null;
  readonly occurredAt: string;
  readonly resolution: ConflictResolution | null;
  readonly resolvedAt: string | null;
  readonly mine: VersionRef;
  readonly theirs: VersionRef;
  /** The entity's documents in the service (the service has no link to one document). */
  readonly link: string;
}

export interface ResolvedConflict {
  readonly id: number;
  readonly choice: ConflictChoice;
  /** What was done to the folder, one sentence each (empty: nothing needed). */
  readonly done: readonly string[];
  /** What the next sync does about it. */
  readonly next: string;
  /** The entity touched: a caller inside the daemon asks for its sync. */
  readonly owner: OwnerRef;
}

export function listConflicts(deps: OperatorDeps, options: { all?: boolean } = {}): ConflictView[] {
  const open = !options.all;
  return deps.state.conflicts.list(1000, { open }).map((c) => viewOf(deps, c));
}

export function openConflict(deps: OperatorDeps, id: number): ConflictView {
  return viewOf(deps, conflictOf(deps, id));
}

/** The entity whose lock resolving the conflict takes; OperatorError for an unknown id. */
export function conflictOwner(deps: OperatorDeps, id: number): OwnerRef {
  return conflictOf(deps, id).owner;
}

export async function resolveConflict(
  deps: OperatorDeps,
  lease: EntityLease,
  id: number,
  choice: ConflictChoice,
): Promise<ResolvedConflict> {
  const record = conflictOf(deps, id);
  deps.locks.assertHeld(record.owner, lease, `resolve conflict ${id}`);
  if (record.resolution !== null) throw alreadyResolved(id, record.resolution);
  const where = placeOf(deps, record);
  if (record.subject === null && choice !== 'keep-both')
    throw new OperatorError(
      'CONFLICT_UNKNOWN_SUBJECT',
      `Conflict ${id} was recorded by an older docsync, which did not keep what resolving it needs: look at ${record.copyPath}, change the folder by hand, then close it with \`docsync conflicts resolve ${id} keep-both\`.`,
      {
        onPage: `An older docsync recorded this conflict without what resolving it needs: look at ${record.copyPath}, change the folder by hand, then close it with "Keep both".`,
      },
    );
  const planned = record.subject
    ? planResolution({ winner: record.winner, subject: record.subject, ...where }, choice)
    : ({ ok: true, steps: [], next: 'the folder stays as it is' } as const);
  if (!planned.ok)
    throw new OperatorError('CONFLICT_CHOICE', `Conflict ${id}: ${planned.why}; nothing changed.`, {
      onPage: `This conflict cannot be resolved that way: ${planned.why}; nothing changed.`,
    });
  // Claimed before any file moves: a second resolution of the same conflict at the same time
  // (a double click, the page beside the command line) finds it resolved and stops, instead of
  // carrying out its own steps on the same files, which could put both versions in the trash.
  // A step that fails gives the claim back. (A crash in between leaves it resolved with the
  // folder as it was: the copy is still there, and `conflicts list --all` shows it.)
  if (!deps.state.conflicts.markResolved(id, choice, deps.now()))
    throw alreadyResolved(id, deps.state.conflicts.get(id)?.resolution ?? null);
  const done: string[] = [];
  try {
    await checkSteps(deps, id, planned.steps);
    for (const step of planned.steps) done.push(await carryOut(deps, step));
  } catch (error) {
    deps.state.conflicts.reopen(id);
    throw error;
  }
  syncWanted(deps, record.owner);
  return { id, choice, done, next: planned.next, owner: record.owner };
}

function alreadyResolved(id: number, resolution: ConflictResolution | null): OperatorError {
  return new OperatorError(
    'CONFLICT_RESOLVED',
    `Conflict ${id} was already resolved (${resolution ?? 'just now'}); \`docsync conflicts list --all\` shows it.`,
    {
      onPage: `This conflict was already resolved (${resolution ?? 'just now'}); reload the page to see what is still open.`,
    },
  );
}

function conflictOf(deps: OperatorDeps, id: number): ConflictRecord {
  const record = Number.isSafeInteger(id) ? deps.state.conflicts.get(id) : null;
  if (!record)
    throw new OperatorError(
      'CONFLICT_NOT_FOUND',
      `No conflict has the id ${id}; \`docsync conflicts list\` shows their ids.`,
      { notFound: true, onPage: 'This conflict is no longer recorded; reload the page.' },
    );
  return record;
}

/** The document's folder now (a user may have renamed it) and the copy's name in it. */
function placeOf(deps: OperatorDeps, c: ConflictRecord): { folder: string; copy: string | null } {
  const kept = c.subject?.kind === 'file' || c.subject?.kind === 'local-edit';
  const recorded = kept ? path.posix.dirname(c.copyPath) : c.copyPath;
  const folder = deps.state.base.get(c.documentId)?.folder ?? recorded;
  return { folder, copy: kept ? path.posix.basename(c.copyPath) : null };
}

function viewOf(deps: OperatorDeps, c: ConflictRecord): ConflictView {
  const { folder, copy } = placeOf(deps, c);
  const abs = (rel: string) => path.join(deps.local.root, ...rel.split('/'));
  const [mine, theirs] = versions(c, folder, copy, abs);
  return {
    id: c.id,
    owner: c.owner,
    documentId: c.documentId,
    folder,
    detail: c.detail,
    winner: c.winner,
    subject: c.subject,
    occurredAt: new Date(c.occurredAt).toISOString(),
    resolution: c.resolution,
    resolvedAt: c.resolvedAt === null ? null : new Date(c.resolvedAt).toISOString(),
    mine,
    theirs,
    link: entityDeepLink(deps.webUrl, c.owner),
  };
}

/** Where the folder's version and the service's are: [mine, theirs]. */
function versions(
  c: ConflictRecord,
  folder: string,
  copy: string | null,
  abs: (rel: string) => string,
): [VersionRef, VersionRef] {
  const s = c.subject;
  const localWon = c.winner === 'local';
  const copyRef = (says: string) => ({ says, path: copy ? abs(`${folder}/${copy}`) : null });
  switch (s?.kind) {
    case 'file': {
      const main = { says: `${s.file}, which kept the name`, path: abs(`${folder}/${s.file}`) };
      const kept = copyRef(`the conflict copy ${copy}`);
      return localWon ? [main, kept] : [kept, main];
    }
    case 'local-edit':
      return [
        copyRef(`your edit of ${s.file}, kept as ${copy}`),
        { says: `${s.file} was removed in the service`, path: null },
      ];
    case 'attachment':
      return [
        {
          says: `${s.file}, replaced in the folder and uploaded again`,
          path: abs(`${folder}/${s.file}`),
        },
        { says: `the service had removed ${s.file}`, path: null },
      ];
    case 'status': {
      const meta = abs(`${folder}/${DOCUMENT_META}`);
      const lost = `"${s.lost ?? 'none'}"`;
      return localWon
        ? [
            { says: "the folder's status, pushed to the service", path: meta },
            { says: `the service's status ${lost}, replaced`, path: null },
          ]
        : [
            { says: `the folder's status ${lost}, not pushed`, path: null },
            { says: "the service's status, now in .document.json", path: meta },
          ];
    }
    case 'document':
      return localWon
        ? [
            {
              says: 'the folder, changed while the service deleted the document',
              path: abs(folder),
            },
            { says: 'deleted in the service; created again from the folder', path: null },
          ]
        : [
            { says: 'the folder was deleted; downloaded again', path: null },
            { says: "the service's document, changed meanwhile", path: abs(folder) },
          ];
    case undefined:
      return localWon
        ? [{ says: "the folder's version", path: abs(folder) }, copyRef(`the copy ${c.copyPath}`)]
        : [copyRef(`the copy ${c.copyPath}`), { says: "the service's version", path: abs(folder) }];
  }
}

/** Before anything changes: every file a step needs is there. */
async function checkSteps(deps: OperatorDeps, id: number, steps: readonly ResolutionStep[]) {
  for (const step of steps) {
    const needed =
      step.kind === 'rename'
        ? step.path
        : step.kind === 'trash' && step.required
          ? step.path
          : step.kind === 'set-status'
            ? `${step.folder}/${DOCUMENT_META}`
            : null;
    if (needed !== null && !(await exists(deps, needed)))
      throw new OperatorError(
        'CONFLICT_FILE_GONE',
        `Conflict ${id}: ${needed} is no longer there, so nothing changed; change the folder by hand, then close the conflict with \`docsync conflicts resolve ${id} keep-both\`.`,
        {
          onPage: `${needed} is no longer there, so nothing changed; change the folder by hand, then close the conflict with "Keep both".`,
        },
      );
  }
}

async function carryOut(deps: OperatorDeps, step: ResolutionStep): Promise<string> {
  switch (step.kind) {
    case 'trash': {
      if (!(await exists(deps, step.path))) return `${step.path} was already gone`;
      // What the person sees as they resolve: whatever a sync did meanwhile, this moves it.
      const trashed = await deps.local.trash(step.path, await deps.local.lookAt(step.path));
      return `moved ${step.path} to ${trashed}`;
    }
    case 'rename': {
      const seen = await deps.local.lookAt(step.path);
      const name = await deps.local.renameFile(step.path, step.to, seen);
      return `renamed ${step.path} to ${name}`;
    }
    case 'set-status': {
      // Read and rewritten only if unchanged between the two: an edit made meanwhile is kept.
      const found = await deps.local.readDocumentMeta(step.folder);
      if (found.meta === null)
        throw new OperatorError(
          'META_UNREADABLE',
          `${step.folder}/${DOCUMENT_META} cannot be read (${found.error ?? 'it is missing'}); repair it, then resolve again.`,
        );
      const meta = { ...found.meta, status: step.status };
      await deps.local.writeDocumentMeta(step.folder, meta, found.expected);
      return `set "status" to "${step.status}" in ${step.folder}/${DOCUMENT_META}`;
    }
  }
}

async function exists(deps: OperatorDeps, rel: string): Promise<boolean> {
  return (await lstat(resolveInside(deps.local.root, rel)).catch(() => null)) !== null;
}
