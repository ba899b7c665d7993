/**
 * Decisions a person took with a command while another docsync has the store: the
 * command records the request, the daemon carries it out under the entity's lock and writes the
 * outcome, and the command, which waits, prints it. Request and outcome are JSON written and read
 * by operator/decisions.ts through one schema each; this table only keeps them. A row is open
 * until its outcome is written; a row a person's command adds is small, and they are few.
 */
import type { DecisionKind } from '../domain/decision-kinds.js';
import type { Database } from './open-database.js';

export interface StoredDecision {
  readonly id: number;
  readonly kind: DecisionKind;
  readonly requestJson: string;
  readonly requestedAt: number;
  /** Null while the decision waits to be carried out. */
  readonly outcomeJson: string | null;
  readonly finishedAt: number | null;
}

interface DecisionRow {
  id: number;
  kind: DecisionKind;
  request_json: string;
  requested_at: number;
  outcome_json: string | null;
  finished_at: number | null;
}

export class OperatorDecisionRepo {
  readonly #record;
  readonly #get;
  readonly #open;
  readonly #finish;

  constructor(db: Database) {
    this.#record = db.prepare(
      `INSERT INTO operator_decisions (kind, request_json, requested_at)
       VALUES (@kind, @requestJson, @at)`,
    );
    this.#get = db.prepare<[number], DecisionRow>('SELECT * FROM operator_decisions WHERE id = ?');
    this.#open = db.prepare<[], DecisionRow>(
      'SELECT * FROM operator_decisions WHERE finished_at IS NULL ORDER BY id',
    );
    this.#finish = db.prepare(
      `UPDATE operator_decisions SET outcome_json = @outcomeJson, finished_at = @at
       WHERE id = @id AND finished_at IS NULL`,
    );
  }

  /** Records a request; returns its id, which the command waits on. */
  record(kind: DecisionKind, requestJson: string, at: number): number {
    return Number(this.#record.run({ kind, requestJson, at }).lastInsertRowid);
  }

  get(id: number): StoredDecision | null {
    const row = this.#get.get(id);
    return row ? toDecision(row) : null;
  }

  /** The decisions not carried out yet, oldest first. */
  open(): StoredDecision[] {
    return this.#open.all().map(toDecision);
  }

  /** Writes the outcome; false when another one was written first. */
  finish(id: number, outcomeJson: string, at: number): boolean {
    return this.#finish.run({ id, outcomeJson, at }).changes === 1;
  }
}

function toDecision(row: DecisionRow): StoredDecision {
  return {
    id: row.id,
    kind: row.kind,
    requestJson: row.request_json,
    requestedAt: row.requested_at,
    outcomeJson: row.outcome_json,
    finishedAt: row.finished_at,
  };
}
