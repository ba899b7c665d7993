/**
 * Bench 5's floor: an idle Node process holding one `fs.watch` handle (one inotify watch) on
 * every folder of the store outside `.docsync/` — the least a watcher that hears every change
 * needs on Linux, where a folder's watch also reports the files in it — and doing nothing else.
 * `node --expose-gc memory-idle-floor.js <root>`: walks the tree, watches, collects the walk's
 * garbage, prints `{"watches": n, "error": …}`, then idles until its stdin closes.
 */
import { type FSWatcher, readdirSync, watch } from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? '.');
const watchers: FSWatcher[] = [];
let error: string | null = null;

function watchTree(dir: string): void {
  if (error) return;
  try {
    watchers.push(watch(dir, { persistent: true }, () => undefined));
  } catch (caught) {
    error = (caught as NodeJS.ErrnoException).code ?? String(caught);
    return;
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !(dir === root && entry.name === '.docsync')) {
      watchTree(path.join(dir, entry.name));
    }
  }
}

watchTree(root);
(globalThis as { gc?: () => void }).gc?.();
process.stdout.write(`${JSON.stringify({ watches: watchers.length, error })}\n`);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
