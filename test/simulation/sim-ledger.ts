/**
 * What happened in one seed, for the invariants to judge (sim-invariants.ts): the chaos ledger
 * (every byte a user wrote, what users deleted, the documents they made), and what the
 * simulation adds to it:
 * - the book (sim-book.ts): every document and attachment of the world as the seed found it,
 *   and each made since, with its document, name, kind and bytes;
 * - status edits, by side, in order: the last status set on a document, by anyone, must be on
 *   both sides or recorded as a conflict;
 * - every write docsync sent to the service (the wrappers show each one);
 * - findings made during the run (a delete without its trash copy, work on an entity without
 *   its lock, as the daemon's own lock counts it).
 */
import type { FaultOptions } from '../../src/simulator/index.js';
import { ChaosLedger } from '../chaos/chaos-ledger.js';
import type { ServiceWrite } from './port-wrappers.js';
import { SimBook } from './sim-book.js';

export interface StatusEdit {
  readonly documentId: string;
  readonly value: string | null;
  /**
   * `remote`: a service user (or the service as the seed found it); `docsync`: the status a
   * document docsync made got; `local`, `operator`: a person, in the folder or by a decision.
   */
  readonly side: 'local' | 'remote' | 'operator' | 'docsync';
  /** Order among everything the ledger records. */
  readonly seq: number;
  /** Virtual time of the edit. */
  readonly at: number;
  /** For a status typed in the folder: the status `.document.json` showed as the person typed. */
  readonly before?: string | null;
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

export type UploadNaming = Pick<FaultOptions, 'latin1UploadNames' | 'cleanedUploadNames'>;

export class SimLedger extends ChaosLedger {
  readonly book = new SimBook();
  readonly statusEdits: StatusEdit[] = [];
  readonly serviceWrites: RecordedWrite[] = [];
  readonly findings: Finding[] = [];
  /** Bytes an operator's decision took out of the folder (a conflict resolved, a delete approved). */
  readonly operatorLetGo = new Set<string>();
  /** How the seed's service stores the names of uploads, for the whole seed (none: as sent). */
  uploadNames: UploadNaming = {};
  #seq = 0;

  /** A number that orders the ledger's records. */
  nextSeq(): number {
    return ++this.#seq;
  }

  statusEdit(
    documentId: string,
    value: string | null,
    side: StatusEdit['side'],
    before?: string | null,
  ): void {
    const edit = { documentId, value, side, seq: this.nextSeq(), at: Date.now() };
    this.statusEdits.push(before === undefined ? edit : { ...edit, before });
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
export const HELD_AS_PROMISED =
  "a removed folder's document is deleted in the service only after its hold time";
/** A promise of the run (the daemon's or the harness's) rejected with no one to hear it. */
export const NO_UNHANDLED = 'no promise rejects unheard';
/** A decision the status page was asked for is answered while the daemon lives. */
export const PAGE_ANSWERS = 'a decision on the status page is answered';
