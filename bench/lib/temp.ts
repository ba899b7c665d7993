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

/** `DOCSYNC_BENCH_KEEP=1` keeps the folders, to look into a run (profiles, strace). */
export function removeScratch(): void {
  if (process.env.DOCSYNC_BENCH_KEEP === '1') {
    for (const dir of made.splice(0)) process.stderr.write(`kept ${dir}\n`);
    return;
  }
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
