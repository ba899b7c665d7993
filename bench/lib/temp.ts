/** Scratch folders of one bench run, under the OS temp dir, removed at the end. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];

export function scratch(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `docsync-bench-${prefix}-`));
  made.push(dir);
  return dir;
}

export function removeScratch(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
