/**
 * What happened in one seed, for the invariants to judge (sim-invariants.ts): the chaos ledger
 * (every byte a user wrote, what users deleted, the documents they made), and what the
 * simulation adds to it:
 * - status edits, by side, in order: a status a person typed must reach the service, be
 *   recorded as a conflict, or still be in the folder;
 * - every write docsync sent to the service (the wrappers show each one);
 * - findings made during the run (a delete without its trash copy, work on an entity without
 *   its lock, as the daemon's own lock counts it).
 */
import { ChaosLedger } from '../chaos/chaos-ledger.js';
import type { ServiceWrite } from './port-wrappers.js';

export interface StatusEdit {
  readonly documentId: string;
  readonly value: string | null;
  readonly side: 'local' | 'remote' | 'operator';
  /** Order among everything the ledger records. */
  readonly seq: number;
  /** Virtual time of the edit. */
  readonly at: number;
}

export interface RecordedWrite {
  readonly write: ServiceWrite;
  readonly ok: boolean;
  /** The status type's name, for a status docsync assigned. */
  readonly statusName: string | null;
  readonly seq: number;
}

export interface Finding {
  /** The invariant, in the words of docs/simulation.md. */
  readonly invariant: string;
  readonly detail: string;
}

export class SimLedger extends ChaosLedger {
  readonly statusEdits: StatusEdit[] = [];
  readonly serviceWrites: RecordedWrite[] = [];
  readonly findings: Finding[] = [];
  #seq = 0;

  /** A number that orders the ledger's records. */
  nextSeq(): number {
    return ++this.#seq;
  }

  statusEdit(documentId: string, value: string | null, side: StatusEdit['side']): void {
    this.statusEdits.push({ documentId, value, side, seq: this.nextSeq(), at: Date.now() });
  }

  wroteToService(write: ServiceWrite, ok: boolean, statusName: string | null = null): void {
    this.serviceWrites.push({ write, ok, statusName, seq: this.nextSeq() });
  }

  found(invariant: string, detail: string): void {
    this.findings.push({ invariant, detail });
  }
}

export const TWO_SYNCS = 'no entity was ever in two syncs';
export const NOTHING_AFTER_SIGTERM = 'nothing starts after SIGTERM';
/** A promise of the run (the daemon's or the harness's) rejected with no one to hear it. */
export const NO_UNHANDLED = 'no promise rejects unheard';
/** A decision the status page was asked for is answered while the daemon lives. */
export const PAGE_ANSWERS = 'a decision on the status page is answered';
