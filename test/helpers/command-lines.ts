/**
 * Commands as docsync prints them to a person (`node dist/cli.js init --for simulator   # why`)
 * or the README shows them, run the way a shell would: the line split into words (double
 * quotes kept together), `# …` dropped, in a real child process.
 */
import { type CliResult, runProcess } from './run-cli.js';

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
  return runProcess(program!, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    timeout: options.timeoutMs ?? 30_000,
  });
}
