/**
 * What the chaos run's users did, so the end can judge the sync: every byte a user wrote (by
 * sha256), the bytes a user deliberately removed from the side they lived on (a user's delete
 * is not a loss), the documents users made (by their unique names), the documents whose folder
 * a user really removed from the store (only those may docsync delete in the service), the
 * contents replaced before a kill aimed between the two steps of the replace, and the counts
 * printed in the summary line.
 */

/** A user attachment's content replaced in the folder, old and new bytes. */
export interface ChaosReplace {
  readonly documentId: string;
  readonly file: string;
  readonly oldSha: string;
  readonly newSha: string;
}

export interface ChaosCounts {
  edits: number;
  localEdits: number;
  remoteEdits: number;
  conflicts: number;
  faultyCycles: number;
  faultsServed: number;
  kills: number;
  cycles: number;
  childRuns: number;
  /** Entity folders moved out of the root, and how many of them left a link in their place. */
  entitiesAway: number;
  entityLinks: number;
  /** Document folders moved into another entity's folder or an `Archive/` subfolder. */
  documentsMoved: number;
  /** Document folders dragged out of the root: deletions, as far as the store is concerned. */
  documentsDraggedOut: number;
  /** Moved folders put back (entities and documents). */
  returns: number;
  /** Child runs killed after an upload was served, and how often both versions were then up. */
  replaceKills: number;
  replaceGaps: number;
}

export class ChaosLedger {
  /** sha256 → what wrote it, for the failure message. */
  readonly written = new Map<string, string>();
  /** Bytes a user deleted or overwrote on the side that held them. */
  readonly userDeleted = new Set<string>();
  /** Names of the documents users made: local folders (name from the folder) and service ones. */
  readonly madeNames = new Set<string>();
  /** Of those, the ones a user later deleted (on either side): they may be gone, once. */
  readonly deletedNames = new Set<string>();
  /**
   * Documents whose folder a user removed from the store (deleted it, or dragged it out of the
   * root): the only ones docsync may delete in the service, besides those deleted there. An id
   * leaves the set when its folder is back (docsync restored it: modify beats delete).
   */
  readonly removedFromStore = new Set<string>();
  readonly replaces: ChaosReplace[] = [];
  /** A line per round, sync, and edit that moves or deletes a document: printed on a failure. */
  readonly story: string[] = [];
  readonly counts: ChaosCounts = {
    edits: 0,
    localEdits: 0,
    remoteEdits: 0,
    conflicts: 0,
    faultyCycles: 0,
    faultsServed: 0,
    kills: 0,
    cycles: 0,
    childRuns: 0,
    entitiesAway: 0,
    entityLinks: 0,
    documentsMoved: 0,
    documentsDraggedOut: 0,
    returns: 0,
    replaceKills: 0,
    replaceGaps: 0,
  };
  private next = 0;

  /** A number unique in this run, for names and contents. */
  serial(): number {
    return ++this.next;
  }

  note(line: string): void {
    this.story.push(line);
  }

  wrote(sha: string, what: string): void {
    this.written.set(sha, what);
  }

  deleted(sha: string): void {
    this.userDeleted.add(sha);
  }

  edit(side: 'local' | 'remote'): void {
    this.counts.edits++;
    if (side === 'local') this.counts.localEdits++;
    else this.counts.remoteEdits++;
  }

  summary(seed: number, rounds: number, ms: number): string {
    const c = this.counts;
    return (
      `chaos seed=${seed} rounds=${rounds}: ${c.edits} edits (${c.localEdits} local, ` +
      `${c.remoteEdits} remote, ${c.conflicts} conflicting pairs), ${c.faultyCycles} faulty ` +
      `cycles (${c.faultsServed} faults served), ${c.kills} kills in ${c.childRuns} child runs, ` +
      `${c.cycles} cycles, ${this.written.size} contents written; ${c.entitiesAway} entity ` +
      `folders away (${c.entityLinks} as links), ${c.documentsMoved} document folders moved, ` +
      `${c.documentsDraggedOut} dragged out of the root, ${c.returns} put back; ` +
      `${c.replaceKills} kills after an upload (${c.replaceGaps} between the steps of a ` +
      `replace); ${Math.round(ms)} ms`
    );
  }
}
