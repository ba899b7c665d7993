/**
 * Carries out one entity's plan, document by document (execute-document.ts), several at once:
 * one bad document never stalls the rest, since its failure is recorded with backoff. The
 * cursor then moves to the newest listed document that is fully in step, never past one that
 * failed (it must be listed again).
 */
import { entityDeepLink } from '../domain/deep-links.js';
import { RunStoppedError } from '../domain/errors.js';
import { ownerKey } from '../domain/owner-key.js';
import type { DocumentPlan } from '../domain/sync-actions.js';
import { cursorFor } from '../domain/timestamps.js';
import type { BaseDocument, DocumentMeta, RemoteDocument, StatusType } from '../domain/types.js';
import type { Logger } from '../log/create-logger.js';
import type { Problem, ProblemItem } from '../state/problem-repo.js';
import { withLearntTypes } from './catalogue.js';
import { commitAgreed } from './commit-agreed.js';
import type { CycleTally } from './cycle-tally.js';
import { extrasOf, metaFromBase, statusNameOf } from './document-meta.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityLease } from './entity-locks.js';
import type { ActionContext } from './execute-action.js';
import { executeDocument } from './execute-document.js';
import { learnPushedTimestamps } from './learn-pushed-timestamps.js';
import { LocalWrites } from './local-writes.js';
import { mapLimit } from './map-limit.js';
import { type EntityJob, malformedItem } from './plan-entity.js';
import { ProblemBook } from './problem-book.js';
import { nameAndDate, unnamedCreatesInDoubt } from './resolve-in-doubt.js';

export interface EntityOutcome {
  readonly owner: EntityJob['owner'];
  /** The entity was held whole (row 50): not synced, its cursor where it was. */
  readonly held: boolean;
  /**
   * Local files wait for a later cycle: some were still changing (within the settle time), or
   * this cycle made a conflict copy that the next one uploads. `--once` waits and goes again.
   */
  readonly settling: boolean;
  /** The listing was whole (a full reconcile), as `cursors.markSynced` records. */
  readonly fullListing: boolean;
  /** Documents in error: failed, refused, waiting out a backoff, or held back in doubt. */
  readonly documentsFailed: number;
  /** Of those, the documents in error only for a problem the person must correct. */
  readonly documentsToCorrect: number;
  /** Documents a stop left (not started, or cut between actions): the next run's, not errors. */
  readonly documentsLeft: number;
  /** The documents not in step after the sync (failed, or not started before a stop). */
  readonly notInStep: ReadonlySet<string>;
  /** Actions that changed the folder or the service. */
  readonly actionsDone: number;
  readonly unmatchedFolders: readonly string[];
}

export interface ExecutionOptions {
  readonly deps: EngineDeps;
  /**
   * The entity's lease, held from its plan to its cursor (cycle-leases.ts): each step checks it
   * is still the entity's current one (a violation is counted if not).
   */
  readonly lease: EntityLease;
  readonly statusTypes: readonly StatusType[];
  /** The cycle's logger; the entity's is made from it when first needed. */
  readonly log: Logger;
  /** The entity's items in error as the cycle began. */
  readonly problems?: readonly Problem[];
  /** Skip items waiting out their backoff (CycleOptions.honourBackoff). */
  readonly honourBackoff?: boolean;
  /** Documents with a push still in doubt after the settlement: left alone this cycle. */
  readonly inDoubt?: ReadonlySet<string>;
  /** Counts documents done and what their actions moved. */
  readonly tally: CycleTally;
}

/**
 * One entity's plan being carried out, in as many `run` calls as the cycle needs (documents the
 * rails cannot hold run at once, deletes once every entity is planned), then `finish`: the
 * cursor moves only after every document of the listing has had its turn.
 */
export class EntityExecution {
  readonly #ctx: ActionContext;
  readonly #writes: LocalWrites;
  readonly #problems: ProblemBook;
  /** Documents not in step: the cursor waits for them. */
  readonly #failed = new Set<string>();
  /**
   * Documents whose plan a person's edit overtook (LocalChangedError): not in step, so the
   * cursor waits for them, but nothing failed.
   */
  readonly #replanned = new Set<string>();
  /** Documents (and refused files) in error this cycle. */
  #errors = 0;
  /** Of those, documents in error only for a problem the person must correct. */
  #toCorrect = 0;
  /** Documents a stop left for the next run. */
  #left = 0;
  readonly #unmatched: string[] = [];
  readonly #pushed = new Set<string>();
  #leftForNextCycle = false;
  readonly #startedAt: number;
  #actionsDone = 0;
  #log: Logger | null = null;

  readonly #inDoubt: ReadonlySet<string>;
  /**
   * Creates of this entity still in doubt, by name and date, that name no document yet: read at
   * the first document the service listed, never for an entity whose plans have none.
   */
  #unnamedCreates: ReadonlySet<string> | null = null;
  readonly #tally: CycleTally;
  readonly #lease: EntityLease;
  private readonly cycleLog: Logger;

  constructor(
    private readonly job: EntityJob,
    options: ExecutionOptions,
  ) {
    const { deps } = options;
    // The plan's types, and those of the documents this sync makes (withLearntTypes): the
    // folder of a new document shows the status the service gave it, list read or not.
    let statusTypes = options.statusTypes;
    const learn = (doc: RemoteDocument | null | undefined) => {
      if (doc) statusTypes = withLearntTypes(deps, statusTypes, [doc]);
    };
    this.cycleLog = options.log;
    this.#inDoubt = options.inDoubt ?? new Set();
    this.#tally = options.tally;
    this.#lease = options.lease;
    const link = entityDeepLink(deps.settings.webUrl, job.owner);
    const writes = new LocalWrites(
      deps,
      job.snapshot.documents,
      (base) => statusNameOf(base, statusTypes),
      job.owner,
    );
    const metaFor = (base: BaseDocument, doc?: RemoteDocument | DocumentMeta | null) =>
      metaFromBase(
        base,
        extrasOf(doc ?? writes.metaOf(base.folder) ?? job.remoteDocs.get(base.id)),
        statusTypes,
        link,
      );
    this.#writes = writes;
    this.#problems = new ProblemBook(
      deps,
      job.owner,
      options.problems ?? [],
      options.honourBackoff ?? false,
    );
    for (const documentId of job.detailFailures.keys())
      this.#problems.stillFailing({ owner: job.owner, documentId });
    for (const entry of job.malformed) this.#problems.stillFailing(malformedItem(job.owner, entry));
    this.#startedAt = deps.now();
    this.#ctx = {
      deps,
      owner: job.owner,
      lease: options.lease,
      entityName: job.record.entity.name,
      entityFolder: job.snapshot.folder ?? job.record.folder ?? '',
      link,
      metaFor: (base, doc) => {
        learn(doc);
        return metaFor(base, doc);
      },
      local: writes,
      refused: (relPath, error) => {
        this.#problems.found({ owner: job.owner, path: relPath }, error.message);
        if (error.fresh) this.#errors++;
        this.log.warn(
          { file: relPath, retryAt: new Date(error.retryAt).toISOString() },
          `${job.record.entity.name} / ${relPath}: not pushed, ${error.message}`,
        );
      },
      writeMeta: (folder, base, doc, options) => {
        learn(doc);
        return writes.writeMeta(folder, metaFor(base, doc ?? writes.metaOf(folder)), options);
      },
    };
  }

  /**
   * Runs these documents of the plan. Documents of one entity are independent (own folder, own
   * base row), so several run at once: one at a time left the request queue idle while each
   * document waited on its fsyncs. After `signal` aborts, documents not started are
   * counted as not in step, so the cursor waits for them.
   */
  async run(
    documents: readonly DocumentPlan[],
    signal?: AbortSignal,
    step: 'execute' | 'delete' = 'execute',
  ): Promise<void> {
    this.#ctx.deps.locks.check(this.job.owner, this.#lease, step);
    const filesOf = (folder: string) => this.#writes.filesOf(folder);
    await mapLimit(documents, this.#ctx.deps.settings.concurrency, async (plan) => {
      const item = problemItem(this.#ctx, plan);
      // A push the service could not be asked about yet: acting on the document now could send
      // it twice, or pull back as new what it already made.
      const inDoubt =
        plan.documentId !== null &&
        (this.#inDoubt.has(plan.documentId) || this.#perhapsCreated(plan.documentId));
      if (signal?.aborted) {
        this.#problems.untouched(item);
        this.#notInStep(plan, 'left');
        this.#tally.documentDone();
        return;
      }
      if (inDoubt || this.#problems.waiting(item, plan)) {
        this.#notInStep(plan, 'error');
        this.#tally.documentDone();
        return;
      }
      const result = await executeDocument({
        ctx: this.#ctx,
        plan,
        item,
        remote: plan.documentId ? (this.job.remoteDocs.get(plan.documentId) ?? null) : null,
        filesOf,
        problems: this.#problems,
        unmatched: this.#unmatched,
        log: this.log.child({ document: plan.documentId ?? plan.key }),
        tally: this.#tally,
        signal,
      });
      this.#tally.documentDone();
      this.#actionsDone += result.done;
      if (result.changedDuringSync) {
        if (plan.documentId) this.#replanned.add(plan.documentId);
      } else if (!result.ok)
        this.#notInStep(plan, result.stopped ? 'left' : result.awaitsPerson ? 'person' : 'error');
      if (result.ok && result.pushedTo) this.#pushed.add(result.pushedTo);
      // A file a person changed during the sync: the document is planned again from a new
      // scan (`--once` runs that cycle; the daemon's watcher reports the change).
      this.#leftForNextCycle ||= result.leftForNextCycle || result.changedDuringSync;
    });
  }

  /**
   * A document nothing agreed, of the name and date of a create still in doubt that could not be
   * checked: perhaps the one it made (resolve-in-doubt.ts, unnamedCreatesInDoubt).
   */
  #perhapsCreated(documentId: string): boolean {
    const doc = this.job.remoteDocs.get(documentId);
    if (doc === undefined) return false;
    const { deps } = this.#ctx;
    this.#unnamedCreates ??= unnamedCreatesInDoubt(deps, this.job.owner);
    return this.#unnamedCreates.has(nameAndDate(doc)) && deps.state.base.get(documentId) === null;
  }

  /** The document is behind (the cursor waits for it): in error, or left by a stop. */
  #notInStep(plan: DocumentPlan, why: 'error' | 'person' | 'left'): void {
    if (plan.documentId) this.#failed.add(plan.documentId);
    if (why === 'left') this.#left++;
    else this.#errors++;
    if (why === 'person') this.#toCorrect++;
  }

  /** The entity's logger, made when first needed: most entities of a cycle log nothing. */
  private get log(): Logger {
    this.#log ??= this.cycleLog.child({ owner: ownerKey(this.job.owner) });
    return this.#log;
  }

  /**
   * Learns the timestamps of what was pushed, and commits them with the cursor moved over what
   * is in step. The cycle records the entity as synced, with all the others in one commit.
   */
  async finish(): Promise<EntityOutcome> {
    const { deps } = this.#ctx;
    deps.locks.check(this.job.owner, this.#lease, 'move the cursor');
    const learnt = await learnPushedTimestamps(
      deps,
      this.job.owner,
      this.#pushed,
      this.#startedAt,
      (base, doc) => this.#ctx.writeMeta(base.folder, base, doc),
    ).catch((error: unknown) => {
      // Not learnt now, learnt by the next cycle's plan (row 27): a cost, not a loss.
      if (!(error instanceof RunStoppedError))
        this.log.warn({ err: error }, 'could not read back the pushed documents');
      return [];
    });
    const notInStep = new Set([...this.#failed, ...this.#replanned]);
    const cursor = this.job.plan.held ? null : nextCursor(this.job, notInStep);
    const change = {
      put: learnt,
      ...(cursor ? { cursor: { owner: this.job.owner, to: cursor } } : {}),
    };
    await commitAgreed(deps, this.#lease, change, { owner: this.job.owner, what: 'cursor' });
    this.#problems.settle();
    return {
      owner: this.job.owner,
      held: this.job.plan.held,
      settling: this.job.snapshot.unsettled > 0 || this.#leftForNextCycle,
      fullListing: this.job.fullListing,
      documentsFailed: this.#errors,
      documentsToCorrect: this.#toCorrect,
      documentsLeft: this.#left,
      notInStep,
      actionsDone: this.#actionsDone,
      unmatchedFolders: this.#unmatched,
    };
  }
}

/** The item a document's failures are recorded under: its id, or its folder while it has none. */
function problemItem(ctx: ActionContext, plan: DocumentPlan): ProblemItem {
  return plan.documentId
    ? { owner: ctx.owner, documentId: plan.documentId }
    : { owner: ctx.owner, path: plan.key.replace(/^folder:/, '') };
}

/** Where the cursor moves: the newest listed document in step; null for nowhere new. */
function nextCursor(job: EntityJob, failed: ReadonlySet<string>): string | null {
  if (job.malformed.length > 0) return null;
  const previous = job.cursor;
  const outcomes = [...job.listed].map(([id, lastUpdatedTimestamp]) => ({
    lastUpdatedTimestamp,
    succeeded: !failed.has(id) && !job.detailFailures.has(id),
  }));
  const next = cursorFor(previous, outcomes);
  return next !== null && next !== previous ? next : null;
}
