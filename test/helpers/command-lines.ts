/**
 * Commands as docsync prints them to a person (`node dist/cli.js init --for simulator   # why`)
 * or the README shows them, run the way a shell would: the line split into words (double
 * quotes kept together), `# …` dropped, in a real child process.
 */
import { spawn } from 'node:child_process';
import type { CliResult } from './run-cli.js';

/** The words of one command line; `# comment` after the command is dropped. */
export function words(line: string): string[] {
  const out: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|(#.*$)|(\S+)/g;
  for (const match of line.matchAll(pattern)) {
    if (match[2] !== undefined) break;
    out.push(match[1] !== undefined ? JSON.parse(`"${match[1]}"`) : match[3]!);
  }
  return out;
}

export function runLine(
  argv: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliResult> {
  const [program, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(program!, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
