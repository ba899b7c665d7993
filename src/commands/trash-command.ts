/**
 * `docsync trash [list] [--json]` and `docsync trash restore <id>`: what `.docsync/trash/` holds,
 * the service's copies of what docsync deleted there among it, and putting an item back
 * (operator/trash.ts does the work; the status page can call the same functions).
 */
import { plural } from '../domain/words.js';
import { listTrash, type TrashView } from '../operator/trash.js';
import { decide, print, printJson, withOperator } from './operator-app.js';
import type { Terminal } from './terminal.js';

interface Common {
  readonly config?: string | undefined;
  readonly json?: boolean;
}

export function trashListCommand(options: Common, terminal: Terminal): Promise<void> {
  return withOperator(terminal, options.config, async (deps) => {
    const items = await listTrash(deps);
    if (options.json) return printJson(terminal, items);
    if (items.length === 0) return print(terminal, options.config, ['The trash is empty.']);
    print(terminal, options.config, [
      ...items.flatMap(describe),
      '',
      'Put one back: `docsync trash restore "<id>"`  (the id is the first line of each item)',
    ]);
  });
}

/** Carried out where the store is: by the running daemon under the entity's lock, or here. */
export async function trashRestoreCommand(
  options: Common & { id: string },
  terminal: Terminal,
): Promise<void> {
  const restored = await decide(terminal, options.config, {
    kind: 'restore-trash',
    itemId: options.id,
  });
  if (options.json) return printJson(terminal, restored);
  print(terminal, options.config, [
    `Restored ${restored.id} to ${restored.restoredTo}.`,
    `Next: ${restored.next}.`,
  ]);
}

function describe(item: TrashView): string[] {
  const what =
    item.kind === 'document-folder'
      ? item.files === 0
        ? 'document folder, no files (only its .document.json)'
        : `document folder, ${plural(item.files, 'file')}, ${bytes(item.bytes)}`
      : `file, ${bytes(item.bytes)}`;
  const from =
    item.from === 'service'
      ? "the service's copy, saved before docsync deleted it there"
      : 'removed from the folder by docsync';
  return [item.id, `    ${what}; ${from}; was ${item.originalPath}`];
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
