/**
 * Invariant 10, checked as each removal happens: every file docsync removes or replaces in the
 * folder is in `.docsync/trash/` with the bytes it had (daemon.md: nothing sync removes is
 * destroyed without passing through the trash). The folder port's wrapper (port-wrappers.ts)
 * shows each call that takes something away, before it runs and once it returned:
 * - `trash`: every file under the path is in the trash path it returned, with its bytes;
 * - `restoreSystemAttachment`: the person's edit it puts aside is beside it, with its bytes;
 * - `renameFile` (a conflict copy): the file is under its new name, with its bytes;
 * - `deletePermanently`: never, in a world configured as the simulation's is, with the default
 *   `onRemoteDelete: "trash"` (only that setting's `"delete"` lets docsync delete for good).
 * The harness is the only scheduler, so nothing else touches the folder during the call: what
 * was read before it is what it took.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RestoredAttachment } from '../../src/local/local-store.js';
import { sha256 } from '../helpers/sync-harness.js';

export const LOCAL_TRASH_COPY =
  'every file docsync removes or replaces in the folder is in the trash with its bytes';

/**
 * Before a folder call: what the check needs to see after it, or null for a call that takes
 * nothing away. `found` receives a breach.
 */
export function watchRemoval(
  root: string,
  method: string,
  args: readonly unknown[],
  found: (detail: string) => void,
): ((result: unknown) => void) | null {
  const abs = (rel: string) => path.join(root, ...rel.split('/'));
  if (method === 'deletePermanently') {
    const rel = args[0] as string;
    const before = filesUnder(abs(rel));
    return () => {
      for (const [sub, sha] of before)
        found(`${path.posix.join(rel, sub)} (${sha.slice(0, 12)}) deleted for good, not trashed`);
    };
  }
  if (method === 'trash') {
    const rel = args[0] as string;
    const before = filesUnder(abs(rel));
    return (result) => {
      const after = filesUnder(abs(result as string));
      for (const [sub, sha] of before)
        if (after.get(sub) !== sha)
          found(
            `${path.posix.join(rel, sub)} trashed, yet ${result as string} holds ${after.has(sub) ? 'other bytes' : 'no such file'} (${sha.slice(0, 12)})`,
          );
    };
  }
  if (method === 'restoreSystemAttachment' || method === 'renameFile') {
    const rel =
      method === 'renameFile' ? (args[0] as string) : `${args[0] as string}/${args[1] as string}`;
    const before = fileSha(abs(rel));
    if (before === null) return null;
    return (result) => {
      const kept =
        method === 'renameFile'
          ? (result as string)
          : ((result as RestoredAttachment).editedCopy ?? null);
      // Restoring a form that holds its original bytes already puts nothing aside.
      const unchanged = method === 'restoreSystemAttachment' && fileSha(abs(rel)) === before;
      const copy = kept === null ? null : path.posix.join(path.posix.dirname(rel), kept);
      if (!unchanged && (copy === null || fileSha(abs(copy)) !== before))
        found(
          `${rel} (${before.slice(0, 12)}) ${method === 'renameFile' ? 'renamed' : 'replaced by its system form'}, and its bytes are not ${copy ? `in ${copy}` : 'kept beside it'}`,
        );
    };
  }
  return null;
}

function fileSha(file: string): string | null {
  try {
    return lstatSync(file).isFile() ? sha256(readFileSync(file)) : null;
  } catch {
    return null;
  }
}

/** Every file at or under `target`: path below it ('' for the file itself) → sha256. */
function filesUnder(target: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), child);
      else if (entry.isFile()) files.set(child, sha256(readFileSync(path.join(dir, entry.name))));
    }
  };
  if (!existsSync(target)) return files;
  const stats = lstatSync(target);
  if (stats.isDirectory()) walk(target, '');
  else if (stats.isFile()) files.set('', sha256(readFileSync(target)));
  return files;
}
