/**
 * One sync cycle: snapshot → plan → rails → execute (style guide §1, §4), pipelined per entity.
 * Entities are planned side by side (their requests share the client's rate-limited queue), and
 * each starts at once on the documents no rail can hold; the deletes wait for the rails, which
 * judge the plans of the whole cycle. The result says what `--once` exits with.
 */
import {
  checkSafety,
  railsMayHold,
  type TrippedRail,
  withoutDeletes,
} from '../domain/check-safety.js';
import { entityDeepLink } from '../domain/deep-links.js';
import { describePlan, summaryLine } from '../domain/describe-plan.js';
import { ExitCode } from '../domain/exit-codes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { SyncPlan } from '../domain/sync-actions.js';
import type { OwnerRef, StatusType } from '../domain/types.js';
import type { CycleTrigger } from '../state/cycle-repo.js';
import type { EntityRecord } from '../state/entity-repo.js';
import type { Problem } from '../state/problem-repo.js';
import { extrasOf, metaFromBase } from './document-meta.js';
import type { EngineDeps } from './engine-deps.js';
import { EntityExecution } from './execute-entity.js';
import { heldFolders, recordHeldFolders } from './held-folders.js';
import { mapLimit } from './map-limit.js';
import { type EntityJob, planEntity } from './plan-entity.js';
import { StateReadAhead } from './read-ahead.js';
import { refreshEntities } from './refresh-entities.js';
import { resolveInDoubt } from './resolve-in-doubt.js';

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
  readonly onProgress?: (done: number, total: number) => void;
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
}

export interface CycleReport {
  readonly result: 'ok' | 'partial' | 'safety-stop';
  readonly exitCode: number;
  readonly entities: number;
  readonly actions: number;
  readonly documentsFailed: number;
  readonly tripped: readonly TrippedRail[];
  readonly unmatchedFolders: readonly string[];
  /** Entities with local files left for a later cycle (EntityOutcome.settling). */
  readonly settling: readonly OwnerRef[];
}

export async function runCycle(deps: EngineDeps, options: CycleOptions): Promise<CycleReport> {
  const { state } = deps;
  const initial = !state.settings.initialSyncDone();
  const full = options.fullReconcile || initial;
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
    const report = await cycle(deps, options, { initial, full, log });
    log.debug({ result: report.result, actions: report.actions }, 'cycle finished');
    const counts = {
      entities: report.entities,
      actions: report.actions,
      documentsFailed: report.documentsFailed,
    };
    state.cycles.finish(cycleId, {
      result: report.result,
      counts,
      finishedAt: deps.now(),
      error: report.tripped.map((t) => t.message).join('; ') || null,
    });
    return report;
  } catch (error) {
    state.cycles.finish(cycleId, {
      result: 'error',
      finishedAt: deps.now(),
      error: (error as Error).message,
    });
    throw error;
  }
}

async function cycle(
  deps: EngineDeps,
  options: CycleOptions,
  ctx: { initial: boolean; full: boolean; log: EngineDeps['logger'] },
): Promise<CycleReport> {
  const { state, local } = deps;
  const { log } = ctx;
  if (ctx.initial && !options.dryRun) {
    // The first sync creates the root and its marker; from then on, no marker means no run.
    if (!(await local.hasMarker())) await local.writeMarker();
  } else if (!(await local.hasMarker())) {
    const verdict = checkSafety([], { markerPresent: false }, safetyPolicy(deps, options));
    return stopped(verdict.ok ? [] : verdict.tripped, log);
  }
  const writeMeta = async (
    folder: string,
    base: Parameters<typeof metaFromBase>[0],
    doc: Parameters<typeof extrasOf>[0],
  ) =>
    local.writeDocumentMeta(
      folder,
      metaFromBase(
        base,
        extrasOf(doc),
        await statusTypesOf(deps, false),
        entityDeepLink(deps.settings.webUrl, base.owner),
      ),
    );
  const inDoubt = options.dryRun ? new Set<string>() : await resolveInDoubt(deps, log, writeMeta);

  const statusTypes = await statusTypesOf(deps, ctx.full);
  const records = await entitiesFor(deps, options, ctx.full);
  const pullOnly = ctx.initial && !options.adoptLocal;
  const held = heldFolders(state);
  // Each entity starts as soon as it is planned, with what no rail can hold back; the deletes
  // wait until every entity is planned, because the rails judge the cycle as a whole. Planning
  // everything first left the downloads idle while the lists and details were read (bench 1).
  let finished = 0;
  const readAhead = new StateReadAhead(deps, records);
  const problems = problemsByOwner(state);
  const started = await mapLimit(records, deps.settings.concurrency, async (record) => {
    const job = await planEntity(deps, record, {
      stored: readAhead.take(record),
      fullReconcile: ctx.full,
      pullOnly,
      adoptLocal: options.adoptLocal ?? false,
      statusTypes,
      heldFolders: held,
      ...(options.deletedIds?.get(ownerKey(record.entity))
        ? { deletedIds: options.deletedIds.get(ownerKey(record.entity))! }
        : {}),
    });
    if (options.dryRun) return { job, execution: null };
    if (job.plan.actions.length > 0)
      log.info({ owner: job.owner, summary: job.plan.summary }, summaryLine(job.plan));
    const execution = new EntityExecution(job, {
      deps,
      statusTypes,
      log,
      problems: problems.get(ownerKey(job.owner)) ?? [],
      honourBackoff: options.honourBackoff ?? false,
      inDoubt,
    });
    await execution.run(
      job.plan.documents.filter((d) => !railsMayHold(d)),
      options.signal,
    );
    options.onProgress?.(++finished, records.length);
    return { job, execution };
  });
  const jobs = started.map((s) => s.job);
  // The marker was checked above, so no rail here stops the run; they only hold deletes back.
  const verdict = checkSafety(
    jobs.map((j) => j.plan),
    { markerPresent: true },
    safetyPolicy(deps, options),
  );
  const tripped = verdict.ok ? [] : verdict.tripped;
  const runnable = tripped.length === 0 ? jobs : jobs.map((job) => withRails(job, tripped));
  if (options.dryRun) {
    for (const job of runnable)
      for (const line of describePlan(job.plan)) options.onPlanLine?.(line);
    for (const rail of tripped) options.onPlanLine?.(`safety rail: ${rail.message}`);
    return report({ entities: runnable.length, tripped });
  }
  for (const rail of tripped) log.error({ rail: rail.rail }, rail.message);
  const outcomes = await mapLimit(
    started,
    deps.settings.concurrency,
    async ({ job, execution }) => {
      const deletes = withRails(job, tripped).plan.documents.filter(railsMayHold);
      await execution!.run(deletes, options.signal);
      return execution!.finish();
    },
  );
  // One commit for the whole cycle: one per entity was ~25 ms per 1,000 entities (bench 2).
  const syncedAt = deps.now();
  state.transaction(() => {
    for (const o of outcomes) {
      if (!o.held) state.cursors.markSynced(o.owner, syncedAt, { fullReconcile: o.fullListing });
    }
  });
  const failed =
    outcomes.reduce((n, o) => n + o.documentsFailed, 0) +
    jobs.reduce((n, j) => n + j.malformed.length + j.detailFailures.size, 0);
  if (ctx.initial && failed === 0 && tripped.length === 0) state.settings.markInitialSyncDone();
  const covered = runnable.flatMap((j) => (j.snapshot.folder ? [j.snapshot.folder] : []));
  recordHeldFolders(
    state,
    covered,
    outcomes.flatMap((o) => o.unmatchedFolders),
    deps.now(),
  );
  return report({
    entities: runnable.length,
    actions: outcomes.reduce((n, o) => n + o.actionsDone, 0),
    failed,
    tripped,
    unmatched: outcomes.flatMap((o) => o.unmatchedFolders),
    settling: outcomes.filter((o) => o.settling).map((o) => o.owner),
  });
}

interface ReportParts {
  readonly entities: number;
  readonly actions?: number;
  readonly failed?: number;
  readonly tripped?: readonly TrippedRail[];
  readonly unmatched?: readonly string[];
  readonly settling?: readonly OwnerRef[];
}

function report(parts: ReportParts): CycleReport {
  const { actions = 0, failed = 0, tripped = [], unmatched = [], settling = [] } = parts;
  const result = tripped.length > 0 ? 'safety-stop' : failed > 0 ? 'partial' : 'ok';
  const exitCode =
    result === 'safety-stop'
      ? ExitCode.SafetyStop
      : result === 'partial'
        ? ExitCode.PartialFailure
        : ExitCode.InSync;
  return {
    result,
    exitCode,
    entities: parts.entities,
    actions,
    documentsFailed: failed,
    tripped,
    unmatchedFolders: unmatched,
    settling,
  };
}

function stopped(tripped: readonly TrippedRail[], log: EngineDeps['logger']): CycleReport {
  for (const rail of tripped) log.error({ rail: rail.rail }, rail.message);
  return report({ entities: 0, tripped });
}

function safetyPolicy(deps: EngineDeps, options: CycleOptions) {
  const { maxDeletePercent, maxDeleteCount } = deps.settings;
  return { maxDeletePercent, maxDeleteCount, forceDeletes: options.forceDeletes ?? false };
}

/** A tripped delete rail removes the deletes it names; everything else of the plan still runs. */
function withRails(job: EntityJob, tripped: readonly TrippedRail[]): EntityJob {
  const applies = tripped.filter(
    (t) => t.owner === null || ownerKey(t.owner) === ownerKey(job.owner),
  );
  if (applies.length === 0) return job;
  const sides = new Set(applies.map((t) => t.side));
  const plan: SyncPlan = withoutDeletes(
    job.plan,
    (a) =>
      (a.kind === 'trash-local-document' && (sides.has('local') || sides.has(null))) ||
      (a.kind === 'push-delete-document' && (sides.has('remote') || sides.has(null))),
  );
  return { ...job, plan };
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

async function statusTypesOf(deps: EngineDeps, refresh: boolean): Promise<StatusType[]> {
  const cached = deps.state.statusTypes.list();
  if (!refresh && cached.length > 0) return cached;
  const fresh = await deps.remote.statusTypes();
  deps.state.statusTypes.replaceAll(fresh, deps.now());
  return fresh;
}

async function entitiesFor(
  deps: EngineDeps,
  options: CycleOptions,
  full: boolean,
): Promise<EntityRecord[]> {
  const known = deps.state.entities.list();
  const refresh = full || options.refreshEntities || known.length === 0;
  const records = refresh ? await refreshEntities(deps) : known;
  if (!options.owners) return records.filter((r) => r.folder !== null);
  const wanted = new Set(options.owners.map(ownerKey));
  return records.filter((r) => r.folder !== null && wanted.has(ownerKey(r.entity)));
}
