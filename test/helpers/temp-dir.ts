import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * A fresh temp folder per test, removed afterwards, so tests can run in parallel.
 * `DOCSYNC_TEST_KEEP=1` keeps them, to look at what a failing run (a chaos seed) left.
 * `inMemory`: under /dev/shm where the system has one to write (Linux's tmpfs), for a test that
 * makes thousands of files and is about what watches or reads them, not about the disk: on a busy
 * machine's disk each new file can take milliseconds, in memory a few microseconds.
 */
export function useTempDir(
  prefix = 'docsync-test-',
  options: { readonly inMemory?: boolean } = {},
): () => string {
  const base = options.inMemory && writable('/dev/shm') ? '/dev/shm' : tmpdir();
  const made: string[] = [];
  afterEach(() => {
    const dirs = made.splice(0);
    if (process.env.DOCSYNC_TEST_KEEP === '1') console.log(`kept: ${dirs.join(' ')}`);
    else for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(path.join(base, prefix));
    made.push(dir);
    return dir;
  };
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
