/**
 * How a person runs this docsync from where they stand, for the commands docsync advises
 * (`docsync demo`, `docsync simulator`, `docsync init`): `docsync` when that name on the PATH
 * leads here (`npm install -g`, `npm link`), else `node` and the path of this cli.js (a clone,
 * where `docsync` alone is "command not found").
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Terminal } from './terminal.js';

export interface SelfCommandInput {
  /** The script node runs: process.argv[1]. */
  readonly script: string | undefined;
  readonly cwd: string;
  /** $PATH. */
  readonly searchPath: string | undefined;
  /** The file a path leads to, or null when there is none. */
  readonly realpath?: (file: string) => string | null;
}

export function selfCommand(input: SelfCommandInput): string {
  const real = input.realpath ?? realOrNull;
  if (!input.script) return 'docsync';
  const script = real(path.resolve(input.cwd, input.script)) ?? path.resolve(input.script);
  for (const dir of (input.searchPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    if (real(path.join(dir, 'docsync')) === script) return 'docsync';
  }
  const relative = path.relative(input.cwd, script);
  const shown = relative.startsWith('..') || path.isAbsolute(relative) ? script : relative;
  return `node ${/[\s"'$`\\]/.test(shown) ? JSON.stringify(shown) : shown}`;
}

/** How docsync runs on `terminal`. */
export function selfOn(terminal: Pick<Terminal, 'script' | 'cwd' | 'env'>): string {
  return selfCommand({ script: terminal.script, cwd: terminal.cwd, searchPath: terminal.env.PATH });
}

function realOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}
