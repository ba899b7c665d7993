/**
 * A person's decision handed from the command line to whoever has the store: the
 * daemon when it runs, the command itself when none does. `docsync conflicts resolve`,
 * `deletes approve|discard` and `trash restore` record the request in the state
 * (`operator_decisions`); the daemon carries it out under the entity's lock, between its syncs,
 * and writes the outcome there, which the command prints. A request and an outcome cross the
 * database, so each has one definition here, written and read through the same schema.
 *
 *   carryOutDecision(deps, request, exclusive)  → DecisionOutcome  the action, under each
 *                                                                   entity's lock in turn
 *   encode / decodeRequest / decodeOutcome                          to and from the state
 */
import * as z from 'zod';
import { assertNever } from '../domain/assert-never.js';
import type { DecisionKind } from '../domain/decision-kinds.js';
import { OperatorError } from '../domain/errors.js';
import { CONFLICT_CHOICES } from '../domain/plan-resolution.js';
import type { OwnerRef } from '../domain/types.js';
import { conflictOwner, type ResolvedConflict, resolveConflict } from './conflicts.js';
import {
  chooseHeldDeletes,
  type Decided,
  decideEachEntity,
  type HeldDeleteView,
} from './held-deletes.js';
import type { ExclusiveRunner, OperatorDeps } from './operator-deps.js';
import { type Restored, restoreFromTrash, trashItemOwner } from './trash.js';

const owner = z.object({ kind: z.enum(['company', 'trust']), id: z.string() });

const heldView = z.object({
  owner,
  documentId: z.string(),
  side: z.enum(['local', 'remote']),
  folder: z.string(),
  documentName: z.string(),
  reason: z.string(),
  waitingUntil: z.string().nullable(),
  firstHeldAt: z.string(),
  lastHeldAt: z.string(),
  decision: z.enum(['approve', 'discard']).nullable(),
  decidedAt: z.string().nullable(),
  would: z.string(),
  ifApproved: z.string(),
  ifDiscarded: z.string(),
}) satisfies z.ZodType<HeldDeleteView>;

/** What each kind of decision asks for, and what carrying it out gives back. */
const KINDS = {
  'resolve-conflict': {
    request: z.object({ conflictId: z.number().int(), choice: z.enum(CONFLICT_CHOICES) }),
    result: z.object({
      id: z.number(),
      choice: z.enum(CONFLICT_CHOICES),
      done: z.array(z.string()),
      next: z.string(),
      owner,
    }) satisfies z.ZodType<ResolvedConflict>,
  },
  'restore-trash': {
    request: z.object({ itemId: z.string() }),
    result: z.object({
      id: z.string(),
      restoredTo: z.string(),
      next: z.string(),
      owner: owner.nullable(),
    }) satisfies z.ZodType<Restored>,
  },
  'decide-held-deletes': {
    request: z.object({
      decision: z.enum(['approve', 'discard']),
      selection: z.union([z.literal('all'), z.array(z.string())]),
    }),
    result: z.object({
      decision: z.enum(['approve', 'discard']),
      held: z.array(heldView),
      owners: z.array(owner),
      next: z.string(),
    }) satisfies z.ZodType<Decided>,
  },
} as const;

/** A decision as asked for: its kind with what it names. */
export type DecisionRequest = {
  [K in DecisionKind]: { readonly kind: K } & z.output<(typeof KINDS)[K]['request']>;
}[DecisionKind];

/** The operator's own result of each kind (the schemas above are checked against them). */
interface Results {
  readonly 'resolve-conflict': ResolvedConflict;
  readonly 'restore-trash': Restored;
  readonly 'decide-held-deletes': Decided;
}

export type DecisionResult<K extends DecisionKind> = Results[K];

/** What became of it: the action's result, or the operator's refusal (nothing was changed). */
export type DecisionOutcome<K extends DecisionKind = DecisionKind> =
  | { readonly ok: true; readonly result: DecisionResult<K> }
  | {
      readonly ok: false;
      readonly code: string;
      readonly message: string;
      readonly notFound: boolean;
    };

const refusal = z.object({
  ok: z.literal(false),
  code: z.string(),
  message: z.string(),
  notFound: z.boolean(),
});

/** The request's JSON for the state; its kind goes in a column of its own. */
export function encodeRequest(request: DecisionRequest): string {
  const { kind, ...rest } = request;
  return JSON.stringify(KINDS[kind].request.parse(rest));
}

/** A stored request, checked; throws a ZodError naming the field at fault. */
export function decodeRequest(kind: DecisionKind, json: string): DecisionRequest {
  return { kind, ...KINDS[kind].request.parse(JSON.parse(json)) } as DecisionRequest;
}

export function encodeOutcome(kind: DecisionKind, outcome: DecisionOutcome): string {
  if (!outcome.ok) return JSON.stringify(refusal.parse(outcome));
  return JSON.stringify({ ok: true, result: KINDS[kind].result.parse(outcome.result) });
}

export function decodeOutcome<K extends DecisionKind>(kind: K, json: string): DecisionOutcome<K> {
  const value: unknown = JSON.parse(json);
  const ok = z.object({ ok: z.literal(true), result: KINDS[kind].result });
  return z.union([ok, refusal]).parse(value) as DecisionOutcome<K>;
}

/** The refusal the outcome carries, as the error the command line ends with. */
export function refusalError(outcome: Extract<DecisionOutcome, { ok: false }>): OperatorError {
  return new OperatorError(outcome.code, outcome.message, { notFound: outcome.notFound });
}

/**
 * Carries the decision out, each entity's part under `exclusive` (its lock in the daemon), one
 * entity after the other. An OperatorError becomes the outcome's refusal; anything else throws.
 */
export async function carryOutDecision(
  deps: OperatorDeps,
  request: DecisionRequest,
  exclusive: ExclusiveRunner,
): Promise<DecisionOutcome> {
  try {
    return { ok: true, result: await carryOut(deps, request, exclusive) };
  } catch (error) {
    if (!(error instanceof OperatorError)) throw error;
    return { ok: false, code: error.code, message: error.message, notFound: error.notFound };
  }
}

/** The entities a carried out decision touched: the daemon syncs them next. */
export function ownersOf(outcome: DecisionOutcome): OwnerRef[] {
  if (!outcome.ok) return [];
  const result = outcome.result;
  if ('owners' in result) return [...result.owners];
  return result.owner ? [result.owner] : [];
}

async function carryOut(
  deps: OperatorDeps,
  request: DecisionRequest,
  exclusive: ExclusiveRunner,
): Promise<DecisionResult<DecisionKind>> {
  switch (request.kind) {
    case 'resolve-conflict': {
      const { conflictId, choice } = request;
      return exclusive(conflictOwner(deps, conflictId), (lease) =>
        resolveConflict(deps, lease, conflictId, choice),
      );
    }
    case 'restore-trash': {
      // An unknown id (refused by restoreFromTrash itself), or an item in no company's or
      // trust's folder, needs no entity to itself.
      const owner = await trashItemOwner(deps, request.itemId);
      if (!owner) return restoreFromTrash(deps, null, request.itemId);
      return exclusive(owner, (lease) => restoreFromTrash(deps, lease, request.itemId));
    }
    case 'decide-held-deletes': {
      const rows = chooseHeldDeletes(deps, request.selection);
      return decideEachEntity(deps, rows, request.decision, exclusive);
    }
    default:
      return assertNever(request);
  }
}
