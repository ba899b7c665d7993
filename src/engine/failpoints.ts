/**
 * Named steps of a sync where the deterministic simulation (docs/simulation.md) takes the turn:
 * it parks the sync there, changes the world around it (an edit on either side, a webhook, an
 * operator's decision, a fault, a crash), and lets it go on when it chooses. The daemon passes
 * no hook, so each step costs one test of an absent field (`EngineDeps.failpoint`); nothing is
 * awaited, and no global holds the hook.
 *
 * Every chain of work the daemon starts reaches a failpoint before its first request or file
 * access (a round, a catalogue refresh, a cycle), which is what lets the simulation run one
 * thing at a time and replay a seed exactly.
 */
import type { OwnerRef } from '../domain/types.js';
import type { CycleResult } from '../state/cycle-repo.js';

export const FAILPOINTS = [
  /** A poll round begins, before it reads the marker or the catalogue (daemon/poll-rounds). */
  'round-start',
  /** The companies and trusts are about to be read again and tied to folders. */
  'catalogue-refresh',
  /** A cycle begins (one entity's, or every entity's), before it reads anything. */
  'cycle-start',
  /** An entity is planned; none of its actions has run. */
  'entity-planned',
  /** Before a write to the folder: a file placed, moved or trashed, `.document.json`, an entity folder. */
  'before-local-write',
  /** A content replace: the new content is up, the old attachment not yet deleted. */
  'between-upload-and-delete',
  /** A document's delete in the service: its copy is in the trash, the service not looked at again. */
  'service-copy-saved',
  /** Before the agreed state of a document is committed (after a push or a local write). */
  'before-commit',
  /** A cycle ended (its cursors recorded), or failed. */
  'cycle-end',
] as const;

export type Failpoint = (typeof FAILPOINTS)[number];

/** Where the sync is at a failpoint: enough for the simulation to name it in its trace. */
export interface FailpointSite {
  /** The entities of a cycle (`cycle-start`, `cycle-end`): `all` for a cycle over every entity. */
  readonly owners?: readonly OwnerRef[] | 'all';
  readonly owner?: OwnerRef;
  readonly documentId?: string | null;
  /** What is about to happen, in a word or two: an action's kind, a file, a folder. */
  readonly what?: string;
  /**
   * `entity-planned`: the decision-table rows (docs/sync-decision-table.md) of the plan's
   * actions, and row 56 once per listed document whose details could not be read, so the
   * simulation can count which rows its seeds reach.
   */
  readonly rows?: readonly number[];
  /** `cycle-end`: how the cycle ended (`error`: it threw). */
  readonly result?: CycleResult;
}

/** Resolves when the sync may go on; rejects to end it there (the simulation's crash). */
export type FailpointHook = (step: Failpoint, site: FailpointSite) => Promise<void>;
