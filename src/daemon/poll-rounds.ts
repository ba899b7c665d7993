/**
 * The daemon's poll rounds, as the state and the log record them. A round is the daemon's unit
 * of coverage: the work scheduler syncs its entities one by one, and this module gives the
 * round what a scheduled cycle over every entity had: one cycle row for all of it, the entities
 * to list (stalest first), the end of the first sync, and one log line that says it ended and
 * what it found.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { refreshCatalogue } from '../engine/catalogue.js';
import { addCounts, NO_COUNTS } from '../engine/cycle-tally.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import { settleProofLeftovers } from '../engine/proof-leftovers.js';
import type { CycleReport } from '../engine/run-cycle.js';
import type { Logger } from '../log/create-logger.js';
import type { CycleResult } from '../state/cycle-repo.js';
import type { StateStore } from '../state/state-store.js';

export interface PollRoundsDeps {
  readonly deps: EngineDeps;
  readonly state: StateStore;
  readonly logger: Logger;
  /** The daemon's stop: a catalogue read under way ends between two entities. */
  readonly signal?: AbortSignal;
}

/** A round's start: its entities, stalest first, or `whole` (see `start`). */
export type RoundStart = { owners: OwnerRef[]; firstSync: boolean } | 'whole';

/** How a round ended, for the daemon's last cycle and its metrics. */
export interface RoundEnd {
  readonly result: CycleResult;
  readonly railsTripped: number;
}

export class PollRounds {
  #round: { id: number; startedAt: number; initial: boolean } | undefined;
  /**
   * The firm's entity count, kept rather than counted on each call: the rails ask for the
   * coverage period on every entity sync, and reading every entity row for it cost a scan of
   * the firm per sync. It is taken again at each round's start, when the entity list is read
   * anyway.
   */
  #entityCount: number;

  constructor(private readonly parts: PollRoundsDeps) {
    this.#entityCount = parts.state.entities.count();
  }

  get entityCount(): number {
    return this.#entityCount;
  }

  /**
   * A poll round begins: one cycle row for all of it, as a scheduled cycle had. The first sync is
   * a round too, entity by entity (pull-only, each a full listing), so its memory grows with the
   * largest entity, not the firm; it makes the root's marker first, and the round that ends
   * without a failure ends the first sync. A root without its marker after the first sync is one
   * cycle over every entity instead, so the root-marker rail is said once, not once per entity.
   */
  async start(full: boolean): Promise<RoundStart> {
    const { deps, state } = this.parts;
    if (deps.failpoint) await deps.failpoint('round-start', { what: full ? 'full' : 'poll' });
    const initial = !state.settings.initialSyncDone();
    if (!(await deps.local.hasMarker())) {
      if (!initial) return 'whole';
      await deps.local.writeMarker();
    }
    // A round that reads no catalogue needs only the folders: parsing every entity record would
    // hold the event loop at each round's start.
    let withFolders: OwnerRef[];
    if (full || initial) {
      await settleProofLeftovers(deps, this.parts.logger);
      const records = await refreshCatalogue(deps, this.parts.signal);
      this.#entityCount = records.length;
      withFolders = records
        .filter((r) => r.folder !== null)
        .map((r) => ({ kind: r.entity.kind, id: r.entity.id }));
    } else {
      this.#entityCount = state.entities.count();
      withFolders = state.entities.folders().map((f) => f.owner);
    }
    // The catalogue's read and the round's order are each a pass over thousands of rows at
    // firm size: a turn between them for what waits (a webhook's answer, a monitor's /healthz).
    await yieldToLoop();
    const lastSync = state.cursors.lastSuccessTimes();
    const staleness = (owner: OwnerRef) => lastSync.get(ownerKey(owner)) ?? 0;
    const owners = withFolders.sort((a, b) => staleness(a) - staleness(b));
    this.#round = {
      startedAt: deps.now(),
      initial,
      id: state.cycles.start({
        trigger: 'cron',
        owner: null,
        fullReconcile: full || initial,
        startedAt: deps.now(),
      }),
    };
    return { owners, firstSync: initial };
  }

  /**
   * The round ended: `reports` are its entities' syncs (null: one failed), `interrupted` when
   * the daemon is stopping. Null when no round was open (a whole cycle stood in for it).
   */
  finish(reports: readonly (CycleReport | null)[], interrupted: boolean): RoundEnd | null {
    const round = this.#round;
    if (!round) return null;
    this.#round = undefined;
    const { deps, state, logger } = this.parts;
    const tripped = reports.flatMap((r) => r?.tripped ?? []);
    const failed = reports.filter((r) => r === null).length;
    const documentsFailed = reports.reduce((n, r) => n + (r?.documentsFailed ?? 0), 0);
    const toCorrect = reports.reduce((n, r) => n + (r?.documentsToCorrect ?? 0), 0);
    const result: CycleResult =
      tripped.length > 0
        ? 'safety-stop'
        : interrupted
          ? 'interrupted'
          : failed > 0 || documentsFailed > 0
            ? 'partial'
            : 'ok';
    const counts = {
      entities: reports.length,
      actions: reports.reduce((n, r) => n + (r?.actions ?? 0), 0),
      documentsFailed,
      ...reports.reduce((sum, r) => (r ? addCounts(sum, r.counts) : sum), NO_COUNTS),
    };
    const finishedAt = deps.now();
    state.cycles.finish(round.id, {
      result,
      counts,
      finishedAt,
      error: tripped.map((t) => t.message).join('; ') || null,
    });
    // An item the person must correct (a status the service does not know) is in error and the
    // round partial, but it says nothing of what was pulled: it must not hold the first sync
    // open for ever, and with it every new folder of the firm (seed 2350).
    const whole = tripped.length === 0 && !interrupted && failed === 0;
    if (round.initial && whole && documentsFailed === toCorrect)
      state.settings.markInitialSyncDone();
    const seconds = Math.round((finishedAt - round.startedAt) / 1000);
    logger.info(
      { round: round.id, result, counts },
      `${round.initial ? 'first sync' : 'poll round'} finished: ${counts.entities} entities in ${seconds} s, ` +
        `pulled ${counts.pulled}, pushed ${counts.pushed}, deleted ${counts.deleted}, ` +
        `${documentsFailed} items failed (${result})`,
    );
    return { result, railsTripped: tripped.length };
  }
}
