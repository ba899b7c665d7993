/**
 * `docsync deletes [list] [--json]`, `docsync deletes approve <id...>|--all`, `docsync deletes
 * discard <id...>|--all`: the deletes a safety rail holds, and the decision on them. It writes
 * the decision into the state database, so it works while the daemon runs (the daemon picks it
 * up within seconds); operator/held-deletes.ts does the work.
 */
import { OperatorError } from '../domain/errors.js';
import type { OwnerRef } from '../domain/types.js';
import { plural } from '../domain/words.js';
import { type HeldDeleteView, listHeldDeletes } from '../operator/held-deletes.js';
import { decide, nameOf, print, printJson, withOperator } from './operator-app.js';
import type { Terminal } from './terminal.js';

interface Common {
  readonly config?: string | undefined;
  readonly json?: boolean;
}

export function deletesListCommand(options: Common, terminal: Terminal): Promise<void> {
  return withOperator(terminal, options.config, (deps) => {
    const held = listHeldDeletes(deps);
    if (options.json) return printJson(terminal, held);
    if (held.length === 0) return print(terminal, options.config, ['No deletes are held.']);
    const inHold = held.filter((h) => h.waitingUntil !== null).length;
    const name = nameOf(deps);
    print(terminal, options.config, [
      inHold === 0
        ? `${plural(held.length, 'delete')} held by the safety rails:`
        : `${plural(held.length - inHold, 'delete')} held by the safety rails, ${inHold} waiting their hold time:`,
      ...held.flatMap((h) => describe(h, name)),
      '',
      'Let them through:   `docsync deletes approve <document id...>`   (or --all)',
      'Keep the documents: `docsync deletes discard <document id...>`   (or --all)',
    ]);
  });
}

/**
 * Carried out where the store is: by the running daemon, each entity's under its lock, which
 * then syncs those entities and says what became of the deletes; or here, for the next run.
 */
export async function deletesDecideCommand(
  decision: 'approve' | 'discard',
  options: Common & { ids: readonly string[]; all?: boolean },
  terminal: Terminal,
): Promise<void> {
  if ((options.all ?? false) === options.ids.length > 0)
    throw new OperatorError(
      'BAD_SELECTION',
      `Name the held deletes to ${decision} by document id, or give --all (not both); \`docsync deletes list\` shows them.`,
    );
  const selection = options.all ? ('all' as const) : [...options.ids];
  const decided = await decide(terminal, options.config, {
    kind: 'decide-held-deletes',
    decision,
    selection,
  });
  if (options.json) return printJson(terminal, decided);
  print(terminal, options.config, [
    `${decision === 'approve' ? 'Approved' : 'Discarded'} ${plural(decided.held.length, 'held delete')}:`,
    ...decided.held.map(
      (h) => `  ${h.documentId}  ${decision === 'approve' ? h.ifApproved : h.ifDiscarded}`,
    ),
    `When: ${decided.next}.`,
  ]);
}

function describe(h: HeldDeleteView, name: (owner: OwnerRef) => string): string[] {
  const decided = h.decision
    ? ` [${h.decision === 'approve' ? 'approved' : 'discarded'} ${h.decidedAt}]`
    : '';
  const since =
    h.waitingUntil === null
      ? `held since ${h.firstHeldAt}`
      : `waits until ${h.waitingUntil}, then counts; no decision needed`;
  return [
    `  ${h.documentId}  ${name(h.owner)}  ${h.documentName}${decided}`,
    `      would ${h.would} (${since})`,
    `      why: ${h.reason}`,
  ];
}
