/**
 * The kinds of decision a person hands to whoever has the store (operator/decisions.ts), as the
 * state's `operator_decisions` table stores them (its CHECK lists the same).
 */
export const DECISION_KINDS = ['resolve-conflict', 'restore-trash', 'decide-held-deletes'] as const;

export type DecisionKind = (typeof DECISION_KINDS)[number];
