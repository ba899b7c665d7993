import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * A fresh temp folder per test, removed afterwards, so tests can run in parallel.
 * `DOCSYNC_TEST_KEEP=1` keeps them, to look at what a failing run (a chaos seed) left.
 */
export function useTempDir(prefix = 'docsync-test-'): () => string {
  const made: string[] = [];
  afterEach(() => {
    const dirs = made.splice(0);
    if (process.env.DOCSYNC_TEST_KEEP === '1') console.log(`kept: ${dirs.join(' ')}`);
    else for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
