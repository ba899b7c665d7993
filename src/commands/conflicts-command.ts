/**
 * `docsync conflicts [list] [--all] [--json]`, `docsync conflicts open <id> [--json]`,
 * `docsync conflicts resolve <id> keep-mine|keep-theirs|keep-both`: the operator's view of the
 * conflict log (operator/conflicts.ts does the work; the status page calls the same functions).
 */
import { OperatorError } from '../domain/errors.js';
import { CONFLICT_CHOICES, type ConflictChoice } from '../domain/plan-resolution.js';
import type { OwnerRef } from '../domain/types.js';
import { type ConflictView, listConflicts, openConflict } from '../operator/conflicts.js';
import { decide, nameOf, print, printJson, withOperator } from './operator-app.js';
import type { Terminal } from './terminal.js';

interface Common {
  readonly config?: string | undefined;
  readonly json?: boolean;
}

export function conflictsListCommand(
  options: Common & { all?: boolean },
  terminal: Terminal,
): Promise<void> {
  return withOperator(terminal, options.config, (deps) => {
    const conflicts = listConflicts(deps, { all: options.all ?? false });
    if (options.json) return printJson(terminal, conflicts);
    if (conflicts.length === 0)
      return print(terminal, options.config, [
        options.all ? 'No conflicts recorded.' : 'No open conflicts.',
      ]);
    print(terminal, options.config, [
      ...conflicts.map((c) => summaryLine(c, nameOf(deps))),
      '',
      'Where each version is: `docsync conflicts open <id>`',
      'Resolve: `docsync conflicts resolve <id> keep-mine|keep-theirs|keep-both`',
    ]);
  });
}

export function conflictsOpenCommand(
  options: Common & { id: string },
  terminal: Terminal,
): Promise<void> {
  return withOperator(terminal, options.config, (deps) => {
    const conflict = openConflict(deps, idOf(options.id));
    if (options.json) return printJson(terminal, conflict);
    const version = (label: string, v: ConflictView['mine']) => [
      `  ${label} ${v.says}`,
      ...(v.path ? [`          ${v.path}`] : []),
    ];
    print(terminal, options.config, [
      summaryLine(conflict, nameOf(deps)),
      ...(conflict.detail ? [`  ${conflict.detail}`] : []),
      ...version('mine:  ', conflict.mine),
      ...version('theirs:', conflict.theirs),
      `  in the service: ${conflict.link}`,
      ...(conflict.resolution
        ? [`  resolved ${conflict.resolvedAt}: ${conflict.resolution}`]
        : [
            `Resolve: \`docsync conflicts resolve ${conflict.id} keep-mine|keep-theirs|keep-both\``,
          ]),
    ]);
  });
}

/**
 * Carried out where the store is (operator-app.ts, `decide`): by the running daemon under the
 * entity's lock, between its syncs, or here when none runs.
 */
export async function conflictsResolveCommand(
  options: Common & { id: string; choice: string },
  terminal: Terminal,
): Promise<void> {
  const choice = choiceOf(options.choice);
  const conflictId = idOf(options.id);
  const result = await decide(terminal, options.config, {
    kind: 'resolve-conflict',
    conflictId,
    choice,
  });
  if (options.json) return printJson(terminal, result);
  print(terminal, options.config, [
    `Conflict ${result.id} resolved: ${result.choice}.`,
    ...result.done.map((d) => `  ${d}`),
    `Next: ${result.next}.`,
  ]);
}

function summaryLine(c: ConflictView, name: (owner: OwnerRef) => string): string {
  const state = c.resolution ? ` [resolved: ${c.resolution}]` : '';
  const won = c.winner === 'local' ? 'the folder won' : 'the service won';
  return `${c.id}  ${c.occurredAt}  ${name(c.owner)}  ${c.folder} (${won})${state}`;
}

function idOf(text: string): number {
  const id = Number(text);
  if (!/^\d+$/u.test(text) || !Number.isSafeInteger(id))
    throw new OperatorError(
      'BAD_ID',
      `"${text}" is not a conflict id; \`docsync conflicts list\` shows their ids (numbers).`,
    );
  return id;
}

function choiceOf(text: string): ConflictChoice {
  const choice = CONFLICT_CHOICES.find((c) => c === text);
  if (!choice)
    throw new OperatorError(
      'BAD_CHOICE',
      `"${text}" is not a resolution; choose keep-mine (the folder's version), keep-theirs (the service's) or keep-both.`,
    );
  return choice;
}
