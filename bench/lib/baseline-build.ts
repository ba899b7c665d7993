/**
 * The daemon as it was at an older commit, built into a scratch folder, for a baseline measured
 * in the same run as today's figure (bench 11: the request queue before fair lanes and pacing).
 * The bench needs the git repository it runs in, and builds with its node_modules.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scratch } from './temp.js';

/** The repository's root (bench/.out/bench/lib → four levels up). */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Builds `commit`'s src with tsc and returns its dist/cli.js. */
export function buildAt(commit: string): string {
  const dir = scratch('baseline');
  const tree = path.join(dir, 'tree');
  mkdirSync(tree);
  const archive = execFileSync('git', ['archive', commit, 'src', 'tsconfig.json', 'package.json'], {
    cwd: REPO,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', tree], { input: archive });
  // A link in a scratch folder, removed with it: the build reads the repository's packages.
  symlinkSync(path.join(REPO, 'node_modules'), path.join(tree, 'node_modules'));
  execFileSync(path.join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', 'src'], { cwd: tree });
  return path.join(tree, 'dist', 'cli.js');
}
