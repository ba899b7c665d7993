/**
 * One hash over every path, size and mtime under a store root (`.docsync/` left out: its tmp
 * folder is docsync's scratch space), to show that a cycle wrote nothing to the folder.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface TreeFingerprint {
  readonly entries: number;
  readonly sha256: string;
}

export function treeFingerprint(root: string): TreeFingerprint {
  const hash = createHash('sha256');
  let entries = 0;
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === '' && name === '.docsync') continue;
      const full = path.join(dir, name);
      const stats = lstatSync(full);
      hash.update(`${rel}/${name}\t${stats.size}\t${stats.mtimeMs}\n`);
      entries++;
      if (stats.isDirectory()) walk(full, `${rel}/${name}`);
    }
  };
  walk(root, '');
  return { entries, sha256: hash.digest('hex') };
}
