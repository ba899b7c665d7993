/**
 * One document's plan, carried out action by action (execute-entity.ts runs many at once). The
 * actions run in order and stop at the first failure, which is recorded with its backoff; a
 * file or status the service refuses is reported alone and the others go on. What the run did
 * (actions done, a push made, a conflict copy left for the next cycle) is its outcome.
 */
import { activityOf } from '../domain/activity.js';
import { applyActionResult } from '../domain/apply-action-result.js';
import { describeDone, documentLabel } from '../domain/describe-done.js';
import {
  LocalChangedError,
  PushRejectedError,
  RemoteChangedError,
  RunStoppedError,
  UploadRefusedError,
} from '../domain/errors.js';
import { isLocalEditCopy } from '../domain/local-folder-names.js';
import { type DocumentPlan, PERSONS_TO_CORRECT, type SyncAction } from '../domain/sync-actions.js';
import type { BaseDocument, LocalFile, RemoteDocument } from '../domain/types.js';
import { DOCUMENT_META } from '../local/local-store.js';
import type { Logger } from '../log/create-logger.js';
import type { ProblemItem } from '../state/problem-repo.js';
import { isStateFailure } from '../state/state-failure.js';
import { commitAgreed } from './commit-agreed.js';
import type { CycleTally } from './cycle-tally.js';
import { metaWriteOf } from './document-meta.js';
import { type ActionContext, executeAction } from './execute-action.js';
import { type IdenticalClashes, identicalClashes } from './identical-clashes.js';
import type { ProblemBook } from './problem-book.js';
import { conflictInCommit, recordConflict } from './record-conflict.js';

/** One document's plan being carried out, and what it reports to. */
export interface DocumentWork {
  readonly ctx: ActionContext;
  readonly plan: DocumentPlan;
  /** Where its failure is recorded. */
  readonly item: ProblemItem;
  /** The service's details of the document, when this cycle read them. */
  readonly remote: RemoteDocument | null;
  readonly filesOf: (folder: string) => readonly LocalFile[];
  readonly problems: ProblemBook;
  readonly unmatched: string[];
  readonly log: Logger;
  /** Counts what each action moved, for the progress display and the run's summary. */
  readonly tally: CycleTally;
  /**
   * Shutdown: the action in flight finishes, the next ones wait for the next sync. Each action
   * commits its own base, so a document stopped between two is consistent, only not in step:
   * thousands of files dropped into one document would make SIGTERM wait minutes for them all.
   */
  readonly signal?: AbortSignal | undefined;
}

export interface DocumentOutcome {
  /** Every action ran and no problem was found: the document is in step. */
  readonly ok: boolean;
  /**
   * A local write found its target changed since the scan (a person's edit during the sync):
   * the rest of the plan was dropped, and the document waits for a plan from a new scan.
   */
  readonly changedDuringSync: boolean;
  /** Actions that changed the folder or the service. */
  readonly done: number;
  /** The document's id when it was pushed (its timestamp is learnt after the entity). */
  readonly pushedTo: string | null;
  /** A conflict copy was made, which the next cycle uploads (row 42). */
  readonly leftForNextCycle: boolean;
  /** Stopped (a signal) before its last action: left for the next run, not in error. */
  readonly stopped: boolean;
  /**
   * Not in step only for a problem the person must correct (PERSONS_TO_CORRECT): in error all
   * the same, but not a failure that would make the first sync incomplete.
   */
  readonly awaitsPerson: boolean;
}

/** Actions that change only docsync's own record, not the folder or the service. */
const STATE_ONLY = new Set<SyncAction['kind']>([
  'update-base',
  'move-base-folder',
  'forget-document',
]);

/** Actions that change the service, and with it the document's `lastUpdatedTimestamp`. */
const PUSHES: ReadonlySet<SyncAction['kind']> = new Set([
  'push-new-document',
  'push-attachment',
  'push-replaced-attachment',
  'push-delete-attachment',
  'push-status',
]);

export function executeDocument(work: DocumentWork): Promise<DocumentOutcome> {
  return new DocumentRun(work).execute();
}

class DocumentRun {
  #base: BaseDocument | null;
  /** `.document.json` is to be written from the final base (metaWriteOf: `after`). */
  #metaStale = false;
  #pushed = false;
  #leftForNextCycle = false;
  #changedDuringSync = false;
  #done = 0;
  #ok = true;
  /** Not in step for a reason other than a problem the person must correct. */
  #failedOtherwise = false;
  #stopped = false;

  constructor(private readonly work: DocumentWork) {
    const id = work.plan.documentId;
    this.#base = id ? work.ctx.deps.state.base.get(id) : null;
    if (this.#base) work.ctx.local.agreedBefore(this.#base);
  }

  async execute(): Promise<DocumentOutcome> {
    const { ctx, plan, filesOf } = this.work;
    try {
      const clashes = await identicalClashes(ctx.deps, plan, filesOf);
      for (const action of plan.actions) {
        if (this.work.signal?.aborted) {
          this.#stop(); // not in step: the cursor waits, and no problem is recorded
          break;
        }
        await this.#step(action, clashes);
      }
      await this.#finish();
      return this.#outcome();
    } catch (error) {
      // The state cannot be written: not this document's fault, and recording it as one would
      // hide it. The daemon stops on it (docs/state.md "When the state cannot be used").
      if (isStateFailure(error)) throw error;
      if (error instanceof RunStoppedError) {
        // Cut by the stop, not failed: each action done committed its base, and the next run
        // carries on from there (a push cut in flight is settled first, as after a crash).
        this.work.log.debug({ reason: error.message }, `${this.#who(plan.actions[0])}: stopped`);
        this.#stop();
        return this.#outcome();
      }
      if (error instanceof LocalChangedError || error instanceof RemoteChangedError)
        return this.#changed(error);
      this.work.log.warn(
        { err: error },
        `${this.#who(plan.actions[0])}: failed, tried again later: ${(error as Error).message}`,
      );
      this.work.problems.failed(this.work.item, (error as Error).message, plan);
      this.#ok = false;
      this.#failedOtherwise = true;
      return this.#outcome();
    }
  }

  /** One action: skipped, settled as already agreed, recorded, or carried out. */
  async #step(action: SyncAction, clashes: IdenticalClashes): Promise<void> {
    this.work.log.debug({ row: action.row, action: action.kind }, 'action');
    if (clashes.skips(action)) return;
    const agreed = clashes.agreed(action);
    if (agreed && action.kind === 'pull-attachment') {
      const files = new Map([[action.attachment.id, agreed]]);
      this.#base = applyActionResult(this.#base, action, { kind: 'files-written', files });
      if (this.#base) {
        await commitAgreed(
          this.work.ctx.deps,
          this.work.ctx.lease,
          { put: [this.#base] },
          {
            owner: this.#base.owner,
            documentId: this.#base.id,
            what: 'the same file on both sides',
          },
        );
        // A copy an earlier try of row 43 left: the conflict is real, and recorded now (under
        // row 42 the folder's copy records it).
        if (agreed.name !== action.clashesWith)
          recordConflict(this.work.ctx, action, {
            folder: this.#base.folder,
            documentId: this.#base.id,
            keptAs: agreed.name,
          });
      }
      this.#metaStale = true;
      this.#done++;
    } else if (action.kind === 'record-problem') {
      const inStep = recordProblem(this.work, action);
      this.#ok &&= inStep;
      this.#failedOtherwise ||= !inStep && !PERSONS_TO_CORRECT.has(action.problem);
    } else if (action.kind === 'write-document-meta') {
      this.#metaStale = true;
    } else {
      // Row 42's copy an earlier try made and could not record: recorded before the pull, as
      // the rename of an uncut try is.
      const left = clashes.unrecorded(action);
      if (left)
        recordConflict(this.work.ctx, left, {
          folder: this.#base?.folder ?? left.folder,
          documentId: left.documentId ?? '',
        });
      await this.#act(action);
    }
  }

  async #act(action: SyncAction): Promise<void> {
    const { ctx, remote } = this.work;
    // Rows 24 and 55: the person's status loses to the service's, and the conflict is where it
    // is kept. Recorded before the file shows the service's: a crash between the two would leave
    // the person's status nowhere, and the next plan would read the folder as agreeing (row 22).
    const localStatusLost =
      action.conflict?.subject.kind === 'status' && action.conflict.winner === 'remote';
    const recordedFirst = localStatusLost && metaWriteOf(action) === 'before';
    if (metaWriteOf(action) === 'before') {
      const next = applyActionResult(this.#base, action, { kind: 'done' });
      if (next && recordedFirst)
        recordConflict(ctx, action, { folder: next.folder, documentId: next.id });
      if (next) await ctx.writeMeta(next.folder, next, remote, { localStatusLost });
    }
    const before = this.#base;
    try {
      this.#base = await executeAction(ctx, action, this.#base);
    } catch (error) {
      // A refused file or status is reported by itself; the document's other changes go on: a
      // status the service no longer takes (a type gone from its catalogue since it was read)
      // must not hold back the document's files until a full round reads the types again.
      const refused = refusedItem(action);
      if (!(error instanceof PushRejectedError) || refused === null) throw error;
      ctx.refused(refused, error);
      // Refused over a newer status of the service's (row 23), the push left that status there:
      // the base takes it, as row 25 pulls one beside a status the service does not take (the
      // folder keeps the typed one, row 29). Else the plan's timestamp (row 27) would be agreed
      // with the status the push meant to replace, and no later sync would see it.
      const kept = statusKeptByRefusal(action, remote);
      if (kept) await this.#act(kept);
      return;
    }
    const base = this.#base;
    // The action is done: what must be kept of it first (a conflict is a person's to-do), then
    // the activity feed, which is only a view and never fails an action that happened.
    // Conflicts settled with a copy are logged where the copy got its real name.
    // A push's conflict went with the push's commit, a download again's with its own
    // (record-conflict.ts).
    const recordedHere =
      action.kind !== 'keep-conflict-copy' &&
      action.kind !== 'pull-attachment' &&
      !conflictInCommit(action) &&
      !recordedFirst;
    if (recordedHere && base)
      recordConflict(ctx, action, { folder: base.folder, documentId: base.id });
    this.#recordActivity(action, base);
    this.#report(action, before, base);
    this.#pushed ||=
      PUSHES.has(action.kind) || (action.kind === 'restore-document' && action.side === 'remote');
    // A "(local edit)" copy of a system file stays local; a conflict copy goes up next cycle.
    this.#leftForNextCycle ||=
      action.kind === 'keep-conflict-copy' && !isLocalEditCopy(action.copyName);
    this.#metaStale = metaWriteOf(action) !== 'with-files';
    if (!STATE_ONLY.has(action.kind)) this.#done++;
  }

  /**
   * The line of the status page's activity feed. Only a state failure stops the sync (as
   * anywhere); another (`SQLITE_BUSY` past the busy timeout) loses this line, not the action.
   */
  #recordActivity(action: SyncAction, base: BaseDocument | null): void {
    const { ctx } = this.work;
    try {
      ctx.deps.state.activity.record(ctx.owner, activityOf(action, base), ctx.deps.now());
    } catch (error) {
      if (isStateFailure(error)) throw error;
      this.work.log.warn(
        { err: error },
        `${this.#who(action)}: done, but its line in the activity feed could not be written: ${(error as Error).message}`,
      );
    }
  }

  /**
   * The action's log line, in words, names first ("Acme Pty Ltd / 2024-06-30 Minutes: pulled
   * minutes.pdf"; the ids are the logger's fields), and what it moved, counted for the run.
   */
  #report(action: SyncAction, before: BaseDocument | null, after: BaseDocument | null): void {
    const done = describeDone(action, after);
    this.work.tally.action(done, action.conflict !== undefined);
    if (!done) return;
    const fields = {
      row: action.row,
      action: action.kind,
      ...(done.file ? { file: done.file } : {}),
    };
    this.work.log.info(fields, `${this.#who(action, before, after)}: ${done.sentence}`);
  }

  /** "Acme Pty Ltd / 2024-06-30 Minutes": the entity's and the document's names. */
  #who(action: SyncAction | undefined, before = this.#base, after = this.#base): string {
    const entity = this.work.ctx.entityName;
    return action ? `${entity} / ${documentLabel(action, before, after)}` : entity;
  }

  /** `.document.json` from the final base, and the item out of the list of problems. */
  async #finish(): Promise<void> {
    const base = this.#base;
    if (this.#metaStale && base) await this.work.ctx.writeMeta(base.folder, base, this.work.remote);
    if (this.#ok) this.work.problems.solved(this.work.item);
  }

  /** Left for the next run: its problem, if it had one, stays as it was. */
  #stop(): void {
    this.#ok = false;
    this.#stopped = true;
    this.work.problems.untouched(this.work.item);
  }

  /**
   * A person changed what an action was about to write over (in the folder, or in the service
   * under a delete): that action and the rest are dropped, with no problem recorded (nothing
   * failed) and none cleared (nothing showed it gone). What ran before stays committed; a new
   * scan sees the change, and the plan made from it decides (a conflict if both sides moved).
   */
  #changed(error: LocalChangedError | RemoteChangedError): DocumentOutcome {
    const where = error instanceof LocalChangedError ? { path: error.path } : {};
    // A file swapped for a link or a special file under an upload is worth a person's look.
    const level = error instanceof UploadRefusedError ? 'warn' : 'info';
    this.work.log[level](where, `${this.#who(this.work.plan.actions[0])}: ${error.message}`);
    this.#ok = false;
    this.#changedDuringSync = true;
    this.work.problems.untouched(this.work.item);
    return this.#outcome();
  }

  #outcome(): DocumentOutcome {
    return {
      ok: this.#ok,
      changedDuringSync: this.#changedDuringSync,
      done: this.#done,
      pushedTo: this.#ok && this.#pushed && this.#base ? this.#base.id : null,
      leftForNextCycle: this.#leftForNextCycle,
      stopped: this.#stopped,
      awaitsPerson:
        !this.#ok && !this.#failedOtherwise && !this.#stopped && !this.#changedDuringSync,
    };
  }
}

/** The path a refusal of this push is reported under; null for a push that is not one alone. */
function refusedItem(action: SyncAction): string | null {
  if (action.kind === 'push-attachment' || action.kind === 'push-replaced-attachment')
    return `${action.folder}/${action.file.name}`;
  if (action.kind === 'push-status') return `${action.folder}/${DOCUMENT_META}`;
  return null;
}

/**
 * The service's status a refused `push-status` was to replace, as a pull of it; null when the
 * push would have replaced the agreed one (row 20): then the base shows the service's already.
 */
function statusKeptByRefusal(
  action: SyncAction,
  remote: RemoteDocument | null,
): Extract<SyncAction, { kind: 'pull-status' }> | null {
  if (action.kind !== 'push-status' || action.replacesStatusId === undefined || !remote)
    return null;
  const { owner, documentId, documentName, folder } = action;
  return {
    kind: 'pull-status',
    row: 21,
    owner,
    documentId,
    documentName,
    folder,
    status: remote.status,
  };
}

function recordProblem(
  work: DocumentWork,
  action: Extract<SyncAction, { kind: 'record-problem' }>,
): boolean {
  const { owner } = work.ctx;
  if (action.problem === 'unmatched-local-folder') {
    work.unmatched.push(action.folder ?? action.documentName);
    return true;
  }
  work.log.warn(
    { row: action.row, problem: action.problem },
    `${work.ctx.entityName} / ${action.folder ?? action.documentName}: ${action.message}`,
  );
  // A folder holding another entity's document is this entity's problem, under its own path:
  // the document's own entity reports the same move under the document (rows 51, 52).
  const item =
    action.documentId && action.problem !== 'document-of-another-entity'
      ? { owner, documentId: action.documentId, path: action.folder }
      : { owner, path: action.folder ?? action.documentName };
  work.problems.found(item, action.message);
  return false;
}
