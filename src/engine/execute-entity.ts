/**
 * Carries out one entity's plan, document by document: a document's actions run in order and
 * stop at its first failure, which is recorded with backoff so one bad document never stalls
 * the rest. The cursor then moves to the newest listed document that is fully in step, never
 * past one that failed (it must be listed again).
 */
import { applyActionResult } from '../domain/apply-action-result.js';
import { entityDeepLink } from '../domain/deep-links.js';
import type { DocumentPlan, SyncAction } from '../domain/sync-actions.js';
import { cursorFor } from '../domain/timestamps.js';
import type {
  BaseDocument,
  DocumentMeta,
  LocalFile,
  RemoteDocument,
  StatusType,
} from '../domain/types.js';
import type { Logger } from '../log/create-logger.js';
import { ownerKey } from '../state/row-helpers.js';
import { extrasOf, metaFromBase } from './document-meta.js';
import type { EngineDeps } from './engine-deps.js';
import { type ActionContext, executeAction } from './execute-action.js';
import { identicalClashes } from './identical-clashes.js';
import { learnPushedTimestamps } from './learn-pushed-timestamps.js';
import { mapLimit } from './map-limit.js';
import type { EntityJob } from './plan-entity.js';

/** Actions that change only docsync's own record, not the folder or the service. */
const STATE_ONLY = new Set<SyncAction['kind']>([
  'update-base',
  'move-base-folder',
  'forget-document',
]);

export interface EntityOutcome {
  readonly owner: EntityJob['owner'];
  /** The listing was whole (a full reconcile), as `cursors.markSynced` records. */
  readonly fullListing: boolean;
  readonly documentsFailed: number;
  /** Actions that changed the folder or the service. */
  readonly actionsDone: number;
  readonly unmatchedFolders: readonly string[];
}

/**
 * One entity's plan being carried out, in as many `run` calls as the cycle needs (documents the
 * rails cannot hold run at once, deletes once every entity is planned), then `finish`: the
 * cursor moves only after every document of the listing has had its turn.
 */
export class EntityExecution {
  readonly #ctx: ActionContext;
  readonly #filesByFolder: ReadonlyMap<string, readonly LocalFile[]>;
  readonly #failed = new Set<string>();
  readonly #unmatched: string[] = [];
  readonly #pushed = new Set<string>();
  readonly #startedAt: number;
  #actionsDone = 0;
  #log: Logger | null = null;

  constructor(
    private readonly job: EntityJob,
    statusTypes: readonly StatusType[],
    private readonly cycleLog: Logger,
    deps: EngineDeps,
  ) {
    const link = entityDeepLink(deps.settings.webUrl, job.owner);
    const metaByFolder = new Map(job.snapshot.documents.map((d) => [d.folder, d.meta]));
    const metaFor = (base: BaseDocument, doc?: RemoteDocument | DocumentMeta | null) =>
      metaFromBase(
        base,
        extrasOf(doc ?? metaByFolder.get(base.folder) ?? job.remoteDocs.get(base.id)),
        statusTypes,
        link,
      );
    this.#filesByFolder = new Map(job.snapshot.documents.map((d) => [d.folder, d.files]));
    this.#startedAt = deps.now();
    this.#ctx = {
      deps,
      owner: job.owner,
      entityFolder: job.snapshot.folder ?? job.record.folder ?? '',
      link,
      metaFor,
      writeMeta: async (folder, base, doc) => {
        await deps.local.writeDocumentMeta(folder, metaFor(base, doc ?? metaByFolder.get(folder)));
      },
    };
  }

  /**
   * Runs these documents of the plan. Documents of one entity are independent (own folder, own
   * base row), so several run at once: one at a time left the request queue idle while each
   * document waited on its fsyncs (bench 1). After `signal` aborts, documents not started are
   * counted as not in step, so the cursor waits for them.
   */
  async run(documents: readonly DocumentPlan[], signal?: AbortSignal): Promise<void> {
    const filesOf = (folder: string) => this.#filesByFolder.get(folder) ?? [];
    await mapLimit(documents, this.#ctx.deps.settings.concurrency, async (plan) => {
      if (signal?.aborted) {
        if (plan.documentId) this.#failed.add(plan.documentId);
        return;
      }
      const docLog = this.log.child({ document: plan.documentId ?? plan.key });
      const remoteDocs = this.job.remoteDocs;
      const result = await executeDocument(
        this.#ctx,
        plan,
        remoteDocs,
        filesOf,
        this.#unmatched,
        docLog,
      );
      this.#actionsDone += result.done;
      if (!result.ok && plan.documentId) this.#failed.add(plan.documentId);
      if (result.ok && result.pushedTo) this.#pushed.add(result.pushedTo);
    });
  }

  /** The entity's logger, made when first needed: most entities of a cycle log nothing. */
  private get log(): Logger {
    this.#log ??= this.cycleLog.child({ owner: ownerKey(this.job.owner) });
    return this.#log;
  }

  /**
   * Moves the cursor over what is in step and learns the timestamps of what was pushed. The
   * cycle records the entity as synced, with all the others in one commit.
   */
  async finish(): Promise<EntityOutcome> {
    const { deps } = this.#ctx;
    advanceCursor(deps, this.job, this.#failed);
    await learnPushedTimestamps(deps, this.job.owner, this.#pushed, this.#startedAt, (base, doc) =>
      this.#ctx.writeMeta(base.folder, base, doc),
    ).catch((error: unknown) =>
      // Not learnt now, learnt by the next cycle's plan (row 27): a cost, not a loss.
      this.log.warn({ err: error }, 'could not read back the pushed documents'),
    );
    return {
      owner: this.job.owner,
      fullListing: this.job.fullListing,
      documentsFailed: this.#failed.size,
      actionsDone: this.#actionsDone,
      unmatchedFolders: this.#unmatched,
    };
  }
}

async function executeDocument(
  ctx: ActionContext,
  plan: DocumentPlan,
  remoteDocs: ReadonlyMap<string, RemoteDocument>,
  filesOf: (folder: string) => readonly LocalFile[],
  unmatched: string[],
  log: Logger,
): Promise<{ ok: boolean; done: number; pushedTo: string | null }> {
  const { deps } = ctx;
  let base: BaseDocument | null = plan.documentId ? deps.state.base.get(plan.documentId) : null;
  const remote = plan.documentId ? (remoteDocs.get(plan.documentId) ?? null) : null;
  let touched = false;
  let pushed = false;
  let done = 0;
  let ok = true;
  try {
    const clashes = await identicalClashes(deps, plan, filesOf);
    for (const action of plan.actions) {
      log.debug({ row: action.row, action: action.kind }, 'action');
      if (clashes.skips(action)) continue;
      const agreed = clashes.agreed(action);
      if (agreed && action.kind === 'pull-attachment') {
        const files = new Map([[action.attachment.id, agreed]]);
        base = applyActionResult(base, action, { kind: 'files-written', files });
        if (base) deps.state.base.put(base);
        touched = true;
        done++;
        continue;
      }
      if (action.kind === 'record-problem') {
        ok = recordProblem(ctx, action, unmatched, log) && ok;
        continue;
      }
      if (action.kind === 'write-document-meta') {
        touched = true;
        continue;
      }
      if (action.kind === 'pull-status' || action.kind === 'pull-details') {
        // The folder shows the new status before the base agrees to it: a crash in between then
        // reads as "both sides made the same change", never as a user edit to push back.
        const next = applyActionResult(base, action, { kind: 'done' });
        if (next) await ctx.writeMeta(next.folder, next, remote);
      }
      base = await executeAction(ctx, action, base);
      pushed ||=
        PUSHES.has(action.kind) || (action.kind === 'restore-document' && action.side === 'remote');
      touched = !writesFinalMeta(action);
      if (!STATE_ONLY.has(action.kind)) done++;
    }
    if (touched && base) await ctx.writeMeta(base.folder, base, remote);
    if (ok && plan.documentId)
      deps.state.problems.clear({ owner: ctx.owner, documentId: plan.documentId });
    return { ok, done, pushedTo: pushed && base ? base.id : null };
  } catch (error) {
    const reason = (error as Error).message;
    log.warn({ err: error }, 'document failed; will retry');
    const item = plan.documentId
      ? { owner: ctx.owner, documentId: plan.documentId }
      : { owner: ctx.owner, path: plan.key.replace(/^folder:/, '') };
    deps.state.problems.record(item, reason, deps.now());
    return { ok: false, done, pushedTo: null };
  }
}

/** A document pulled into a new folder: its `.document.json` went in with its files. */
const writesFinalMeta = (action: SyncAction) =>
  (action.kind === 'pull-new-document' && action.folder === null) ||
  (action.kind === 'restore-document' && action.side === 'local');

/** Actions that change the service, and with it the document's `lastUpdatedTimestamp`. */
const PUSHES: ReadonlySet<SyncAction['kind']> = new Set([
  'push-new-document',
  'push-attachment',
  'push-replaced-attachment',
  'push-delete-attachment',
  'push-status',
]);

function recordProblem(
  ctx: ActionContext,
  action: Extract<SyncAction, { kind: 'record-problem' }>,
  unmatched: string[],
  log: Logger,
): boolean {
  if (action.problem === 'unmatched-local-folder') {
    unmatched.push(action.folder ?? action.documentName);
    return true;
  }
  log.warn({ row: action.row, problem: action.problem }, action.message);
  const item = action.documentId
    ? { owner: ctx.owner, documentId: action.documentId, path: action.folder }
    : { owner: ctx.owner, path: action.folder ?? action.documentName };
  ctx.deps.state.problems.record(item, action.message, ctx.deps.now());
  return false;
}

function advanceCursor(deps: EngineDeps, job: EntityJob, failed: ReadonlySet<string>) {
  if (job.malformed.length === 0) {
    const previous = job.cursor;
    const outcomes = [...job.listed].map(([id, lastUpdatedTimestamp]) => ({
      lastUpdatedTimestamp,
      succeeded: !failed.has(id) && !job.detailFailures.has(id),
    }));
    const next = cursorFor(previous, outcomes);
    if (next !== null && next !== previous) deps.state.cursors.advance(job.owner, next);
  }
}
