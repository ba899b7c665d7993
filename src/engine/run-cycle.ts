/**
 * One sync cycle: snapshot → plan → rails → execute (style guide §1, §4), pipelined per entity.
 * Entities are planned side by side (their requests share the client's rate-limited queue), and
 * each starts at once on the documents no rail can hold; the deletes wait for the rails, which
 * judge the plans of the whole cycle. `cycle` reads top to bottom as its phases; the report says
 * what `--once` exits with.
 */
import { railsMayHold, type TrippedRail, withoutDeletes } from '../domain/check-safety.js';
import { entityDeepLink } from '../domain/deep-links.js';
import { describePlan, summaryLine } from '../domain/describe-plan.js';
import { RunStoppedError } from '../domain/errors.js';
import { ownerKey } from '../domain/owner-key.js';
import { type DocumentPlan, type SyncPlan, summariseActions } from '../domain/sync-actions.js';
import type { OwnerRef } from '../domain/types.js';
import type { CycleResult, CycleTrigger } from '../state/cycle-repo.js';
import type { EntityRecord } from '../state/entity-repo.js';
import type { Problem } from '../state/problem-repo.js';
import { announcedFor, settleAnnounced } from './announced-deletions.js';
import { entitiesFor, type StatusCatalogue, statusTypesOf, withLearntTypes } from './catalogue.js';
import { CycleLeases } from './cycle-leases.js';
import {
  judgeRails,
  markerRails,
  type RailOptions,
  type RailVerdict,
  withRails,
} from './cycle-rails.js';
import { type CycleReport, cycleReport } from './cycle-report.js';
import { type CycleProgress, CycleTally } from './cycle-tally.js';
import type { DeleteWindow } from './delete-window.js';
import { extrasOf, metaFromBase } from './document-meta.js';
import type { EngineDeps } from './engine-deps.js';
import { EntityExecution, type EntityOutcome } from './execute-entity.js';
import {
  type CycleDecisions,
  heldDeletePlanning,
  logHolds,
  readDecisions,
  recordHeldDeletes,
  settleHeldDeletes,
} from './held-deletes.js';
import { heldFolders, recordHeldFolders } from './held-folders.js';
import { LocalWrites } from './local-writes.js';
import { mapLimit } from './map-limit.js';
import { type EntityJob, planEntity } from './plan-entity.js';
import { settleProofLeftovers } from './proof-leftovers.js';
import { StateReadAhead } from './read-ahead.js';
import { resolveInDoubt, type SettleMetaWrite } from './resolve-in-doubt.js';

export type { CycleReport } from './cycle-report.js';

export interface CycleOptions {
  readonly trigger: CycleTrigger;
  /** Only these entities (watcher, webhook); all when absent. */
  readonly owners?: readonly OwnerRef[];
  /** List every document (finds remote deletions); the first cycle always does. */
  readonly fullReconcile: boolean;
  readonly dryRun?: boolean;
  readonly forceDeletes?: boolean;
  readonly adoptLocal?: boolean;
  /** Documents `deleteDocument` webhooks named, by `kind:id` of their owner. */
  readonly deletedIds?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Receives the `--dry-run` plan, one sentence per line. */
  readonly onPlanLine?: (line: string) => void;
  /** Told of each entity and document done, with the counts so far (`--once`'s display). */
  readonly onProgress?: (progress: CycleProgress) => void;
  /** Read the companies and trusts again (an unknown entity was named by a webhook). */
  readonly refreshEntities?: boolean;
  /** Shutdown: documents not started yet are left for the next cycle (their cursor waits). */
  readonly signal?: AbortSignal;
  /**
   * Skip items in error until their backoff ends or their plan changes. The daemon does, so a
   * failing item is not retried every cycle; a `--once` run, started by a person or a nightly
   * timer, retries everything.
   */
  readonly honourBackoff?: boolean;
  /** The daemon's rolling window of deletes let through (see delete-window.ts). */
  readonly deleteWindow?: DeleteWindow;
  /**
   * One entity's sync within a poll round: the round records one cycle for all of them, so this
   * one records none of its own.
   */
  readonly partOfRound?: boolean;
}

export async function runCycle(deps: EngineDeps, options: CycleOptions): Promise<CycleReport> {
  if (!deps.failpoint) return recordedCycle(deps, options);
  const owners = options.owners ?? 'all';
  await deps.failpoint('cycle-start', { owners });
  let result: CycleResult = 'error';
  try {
    const report = await recordedCycle(deps, options);
    result = report.result;
    return report;
  } finally {
    await deps.failpoint('cycle-end', { owners, result });
  }
}

/** The cycle with its row in the state (none for one entity's sync within a poll round). */
async function recordedCycle(deps: EngineDeps, options: CycleOptions): Promise<CycleReport> {
  const { state } = deps;
  const initial = !state.settings.initialSyncDone();
  const full = options.fullReconcile || initial;
  const tally = new CycleTally(options.onProgress);
  if (options.partOfRound) {
    const log = deps.logger;
    return cycle({ deps, options, initial, full, log, tally }).catch((error: unknown) => {
      markFailed(deps, options, error);
      throw error;
    });
  }
  const cycleId = state.cycles.start({
    trigger: options.trigger,
    owner: options.owners?.length === 1 ? options.owners[0]! : null,
    fullReconcile: full,
    startedAt: deps.now(),
  });
  const log = deps.logger.child({ cycle: cycleId });
  log.debug(
    { trigger: options.trigger, owners: options.owners?.map(ownerKey) ?? 'all', full },
    'cycle started',
  );
  try {
    const report = await cycle({ deps, options, initial, full, log, tally });
    log.debug({ result: report.result, actions: report.actions }, 'cycle finished');
    const counts = {
      entities: report.entities,
      actions: report.actions,
      documentsFailed: report.documentsFailed,
      ...report.counts,
    };
    state.cycles.finish(cycleId, {
      result: report.result,
      counts,
      finishedAt: deps.now(),
      error: report.tripped.map((t) => t.message).join('; ') || null,
    });
    return report;
  } catch (error) {
    // Stopped before any entity was planned (the catalogue, pushes in doubt): interrupted.
    if (error instanceof RunStoppedError && options.signal?.aborted) {
      const report = cycleReport({ entities: 0, interrupted: true, counts: tally.counts });
      state.cycles.finish(cycleId, { result: report.result, finishedAt: deps.now(), error: null });
      return report;
    }
    state.cycles.finish(cycleId, {
      result: 'error',
      finishedAt: deps.now(),
      error: (error as Error).message,
    });
    markFailed(deps, options, error);
    throw error;
  }
}

/**
 * The sync of these entities failed as a whole (the service unreachable, say): each one's
 * "Last error" on the status page says so until a sync of it gets through (`markSynced`).
 */
function markFailed(deps: EngineDeps, options: CycleOptions, error: unknown): void {
  if (error instanceof RunStoppedError) return;
  const message = (error as Error).message;
  for (const owner of options.owners ?? [])
    deps.state.cursors.markFailed(owner, message, deps.now());
}

/** One cycle's inputs, shared by its phases. */
interface Cycle {
  readonly deps: EngineDeps;
  readonly options: CycleOptions;
  /** The store's first sync: pull-only, and it makes the root's marker. */
  readonly initial: boolean;
  /** Every document is listed (finds deletions in the service). */
  readonly full: boolean;
  readonly log: EngineDeps['logger'];
  /** What the cycle has done so far (cycle-tally.ts). */
  readonly tally: CycleTally;
}

/** An entity planned and started on what no rail can hold; its deletes wait for the rails. */
interface Started {
  readonly job: EntityJob;
  /** Null in a dry run, which carries out nothing. */
  readonly execution: EntityExecution | null;
  /** The deletions webhooks announced and the state keeps, which this sync may settle. */
  readonly announced: readonly string[];
}

async function cycle(c: Cycle): Promise<CycleReport> {
  if (!(await rootIsReady(c))) return stopped(markerRails(c.deps, c.options), c.log);
  const overAll = c.full && !c.options.owners;
  if (overAll && !c.options.dryRun) await settleProofLeftovers(c.deps, c.log);
  // The catalogue (companies, trusts, status types) is read again by a full cycle over every
  // entity; one entity's full listing (a poll round's) must not read it 5,000 times. It is read
  // before any entity's lock is taken: reading it may forget an entity, under that one's lock.
  const statuses = await statusTypesOf(c.deps, overAll);
  const records = await entitiesFor(c.deps, c.options, c.full);
  const leases = new CycleLeases(c.deps.locks, `sync (${c.options.trigger})`);
  try {
    const inDoubt = c.options.dryRun ? new Set<string>() : await settlePushesInDoubt(c, leases);
    const decisions = readDecisions(c.deps);
    const started = await planAndStart(c, records, statuses, inDoubt, decisions, leases);
    const rails = { ...c.options, approvedDeletes: decisions.approved };
    const jobs = started.map((s) => s.job);
    const verdict = judgeRails(c.deps, rails, jobs);
    if (c.options.dryRun) return printPlan(c, started, verdict, rails);
    const kept = recordHeldDeletes(c.deps, jobs, verdict, rails);
    logHolds(c.log, verdict, kept, c.options.deleteWindow);
    const outcomes = await runDeletes(c, started, verdict, rails);
    settleHeldDeletes(c.deps, decisions, jobs, outcomes);
    return recordCycle(c, started, outcomes, verdict.tripped);
  } finally {
    leases.releaseAll();
  }
}

/**
 * The root and its `.docsync-root`: the first sync makes them; after it, no marker, no run. A dry
 * run of the first sync plans against the folder as it is (perhaps not there yet) and makes
 * nothing.
 */
async function rootIsReady({ deps, options, initial }: Cycle): Promise<boolean> {
  if (await deps.local.hasMarker()) return true;
  if (!initial) return false;
  if (!options.dryRun) await deps.local.writeMarker();
  return true;
}

/**
 * Pushes a crash left in doubt are read back from the service before anything is planned, under
 * the locks of their entities (a cycle of some entities takes all of theirs here).
 */
async function settlePushesInDoubt(
  { deps, log, options }: Cycle,
  leases: CycleLeases,
): Promise<Set<string>> {
  await leases.holdAll(options.owners ?? deps.state.outbox.inDoubt().map((i) => i.owner));
  // No scan behind these (a create's folder, before any plan): each `.document.json` is
  // rewritten over what is found there now.
  const writes = new LocalWrites(deps, [], () => null);
  const writeMeta: SettleMetaWrite = async (folder, base, doc, folderIdentity) =>
    writes.writeMeta(
      folder,
      metaFromBase(
        base,
        extrasOf(doc),
        withLearntTypes(deps, (await statusTypesOf(deps, false)).types, [doc]),
        entityDeepLink(deps.settings.webUrl, base.owner),
      ),
      { folderIdentity },
    );
  return resolveInDoubt(deps, log, writeMeta, leases, options.owners);
}

/**
 * Plans each entity and starts it at once on the documents no rail can hold: planning
 * everything first left the downloads idle while the lists and details were read.
 */
async function planAndStart(
  c: Cycle,
  records: readonly EntityRecord[],
  statuses: StatusCatalogue,
  inDoubt: ReadonlySet<string>,
  decisions: CycleDecisions,
  leases: CycleLeases,
): Promise<Started[]> {
  const { deps, options, log, tally } = c;
  const held = heldFolders(deps.state);
  const readAhead = new StateReadAhead(deps, records);
  const problems = problemsByOwner(deps.state);
  tally.entities(records.length);
  const started = await mapLimit(records, deps.settings.concurrency, async (record) => {
    // Stopping: an entity not planned yet is not started at all (its cursor waits).
    if (options.signal?.aborted) return null;
    const lease = await leases.hold(record.entity);
    // Stopping while the lock was awaited: the entity is left for the next cycle, untouched.
    if (options.signal?.aborted) return null;
    deps.locks.check(record.entity, lease, 'plan');
    const announced = announcedFor(
      deps,
      record.entity,
      options.deletedIds?.get(ownerKey(record.entity)),
    );
    const webhookIds = announced.ids;
    const job = await planEntity(deps, record, {
      lease,
      stored: readAhead.take(record),
      fullReconcile: c.full,
      pullOnly: c.initial && !options.adoptLocal,
      adoptLocal: options.adoptLocal ?? false,
      statusTypes: statuses.types,
      statusPushesWait: statuses.pushesWait !== null,
      heldFolders: held,
      ...heldDeletePlanning(decisions, record.entity, webhookIds),
      ...(options.dryRun ? { dryRun: true } : {}),
    }).catch((error: unknown) => {
      // Stopped while it was being read: left whole for the next run, like one not reached.
      if (error instanceof RunStoppedError) return null;
      throw error;
    });
    if (job === null) return null;
    if (options.dryRun) return { job, execution: null, announced: announced.kept };
    if (deps.failpoint)
      await deps.failpoint('entity-planned', {
        owner: job.owner,
        what: `${job.plan.actions.length} actions`,
        rows: [
          ...job.plan.actions.map((a) => a.row),
          ...[...job.detailFailures.keys()].map(() => 56),
        ],
      });
    // Under the daemon a document delete waits for the rails, often for its hold time too: the
    // summary says what goes now, and the deletes are told once judged (runDeletes, logHolds).
    logSummary(log, options.deleteWindow ? withoutDeletes(job.plan) : job.plan, record.entity.name);
    tally.planned(job.plan.documents.length);
    const execution = new EntityExecution(job, {
      deps,
      lease,
      // With the types this entity's documents taught the plan (plan-entity.ts).
      statusTypes: job.statusTypes,
      log,
      problems: problems.get(ownerKey(job.owner)) ?? [],
      honourBackoff: options.honourBackoff ?? false,
      inDoubt,
      tally,
    });
    await execution.run(
      job.plan.documents.filter((d) => !railsMayHold(d)),
      options.signal,
    );
    tally.entityDone();
    return { job, execution, announced: announced.kept };
  });
  return started.filter((s): s is Started => s !== null);
}

/** `--dry-run`: the plan as sentences, with the rails' verdict; nothing carried out. */
function printPlan(
  c: Cycle,
  started: readonly Started[],
  verdict: RailVerdict,
  rails: RailOptions,
) {
  const { tripped } = verdict;
  const jobs = started.map((s) => withRails(s.job, verdict, rails));
  for (const job of jobs) for (const line of describePlan(job.plan)) c.options.onPlanLine?.(line);
  for (const rail of tripped) c.options.onPlanLine?.(`safety rail: ${rail.message}`);
  return cycleReport({ entities: jobs.length, tripped });
}

/** The deletes the rails let through, then each entity's finish (cursor, learnt timestamps). */
function runDeletes(
  c: Cycle,
  started: readonly Started[],
  verdict: RailVerdict,
  rails: RailOptions,
): Promise<EntityOutcome[]> {
  return mapLimit(started, c.deps.settings.concurrency, async ({ job, execution, announced }) => {
    const deletes = withRails(job, verdict, rails).plan.documents.filter(railsMayHold);
    if (c.options.deleteWindow && deletes.length > 0)
      logSummary(c.log, withDocuments(job.plan, deletes), job.record.entity.name);
    // Documents whose deletes a rail holds back, or that wait their hold time, are done with,
    // for this cycle.
    c.tally.documentDone(job.plan.documents.filter(railsMayHold).length - deletes.length);
    await execution!.run(deletes, c.options.signal, 'delete');
    // The entity's finish commits its cursor (commitAgreed).
    const outcome = await execution!.finish();
    settleAnnounced(c.deps, job, announced);
    return outcome;
  });
}

/** The plan's summary before acting (style guide §12). */
function logSummary(log: EngineDeps['logger'], plan: SyncPlan, entityName: string): void {
  if (plan.actions.length > 0)
    log.info({ owner: ownerKey(plan.owner), summary: plan.summary }, summaryLine(plan, entityName));
}

function withDocuments(plan: SyncPlan, documents: readonly DocumentPlan[]): SyncPlan {
  const actions = documents.flatMap((d) => d.actions);
  return { ...plan, documents, actions, summary: summariseActions(actions) };
}

/** What the cycle leaves in the state besides the documents, and its report. */
function recordCycle(
  c: Cycle,
  started: readonly Started[],
  outcomes: readonly EntityOutcome[],
  tripped: readonly TrippedRail[],
): CycleReport {
  const { state } = c.deps;
  const jobs = started.map((s) => s.job);
  // One commit for the whole cycle: one per entity costs a commit's overhead per entity.
  const syncedAt = c.deps.now();
  state.transaction(() => {
    for (const o of outcomes) {
      if (!o.held) state.cursors.markSynced(o.owner, syncedAt, { fullReconcile: o.fullListing });
    }
  });
  const failed =
    outcomes.reduce((n, o) => n + o.documentsFailed, 0) +
    jobs.reduce((n, j) => n + j.malformed.length + j.detailFailures.size, 0);
  const toCorrect = outcomes.reduce((n, o) => n + o.documentsToCorrect, 0);
  const left = {
    documents: outcomes.reduce((n, o) => n + o.documentsLeft, 0),
    entities: c.tally.entitiesTotal - jobs.length,
  };
  // Only a cycle over every entity ends the first sync: one entity's says nothing of the rest.
  // A status typed that the service does not know is the person's to correct, not a failure.
  if (c.initial && !c.options.owners && failed === toCorrect && tripped.length === 0)
    state.settings.markInitialSyncDone();
  // The companies and trusts the service sent that could not be read: their documents were not
  // synced, so a cycle over every entity is not whole (but the first sync still counts as done:
  // what was read is synced, and such a record is matched like a new one once it reads).
  const recordsInError = c.options.owners
    ? 0
    : state.recordErrors.list().filter((e) => e.level === 'error').length;
  const unmatched = outcomes.flatMap((o) => o.unmatchedFolders);
  const covered = jobs.flatMap((j) => (j.snapshot.folder ? [j.snapshot.folder] : []));
  recordHeldFolders(state, covered, unmatched, c.deps.now());
  return cycleReport({
    entities: jobs.length,
    actions: outcomes.reduce((n, o) => n + o.actionsDone, 0),
    failed,
    toCorrect,
    recordsInError,
    tripped,
    unmatched,
    settling: outcomes.filter((o) => o.settling).map((o) => o.owner),
    interrupted: c.options.signal?.aborted ?? false,
    left,
    counts: c.tally.counts,
  });
}

function stopped(tripped: readonly TrippedRail[], log: EngineDeps['logger']): CycleReport {
  for (const rail of tripped) log.error({ rail: rail.rail }, rail.message);
  return cycleReport({ entities: 0, tripped });
}

/** Items in error as the cycle begins, by owner: a handful, read in one statement. */
function problemsByOwner(state: EngineDeps['state']): Map<string, Problem[]> {
  const byOwner = new Map<string, Problem[]>();
  for (const problem of state.problems.list()) {
    const key = ownerKey(problem.owner);
    byOwner.set(key, [...(byOwner.get(key) ?? []), problem]);
  }
  return byOwner;
}
