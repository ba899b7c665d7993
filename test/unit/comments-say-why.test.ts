/**
 * Comments in src say why, not when: the history of a line (the issue that asked for it, the
 * benchmark run that measured it) lives in commit messages and docs/benchmarks.md, where it can
 * be kept current. A comment that cites "issue 16" or "bench 9" reads as a reason to a newcomer
 * and goes stale the day the figure changes; this names every one with its file and line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const HISTORY = /\b(issue|bench)\s*#?\d+/i;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(path.join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [path.join(dir, e.name)]
        : [],
  );
}

it('no comment in src cites an issue or a benchmark by number', () => {
  const cited = sources(SRC).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        HISTORY.test(line) ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
  expect(cited).toEqual([]);
});
