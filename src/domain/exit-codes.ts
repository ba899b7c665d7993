/**
 * Exit codes of `docsync run --once`, the one list `run --help`, the docs' tables
 * (docs/commands.md#exit-codes, the README) and the program share; a test holds the docs to it.
 */
export const ExitCode = {
  InSync: 0,
  /** Configuration, authentication, service unreachable, another instance running. */
  CouldNotRun: 1,
  /** A safety rail stopped the run; nothing was deleted. */
  SafetyStop: 2,
  /** The run finished, but some items failed and will be retried. */
  PartialFailure: 3,
  /** Stopped by SIGINT or SIGTERM before it finished; the next run takes up the rest. */
  Interrupted: 4,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Each code in a few words, as `run --help` lists them. */
export const EXIT_CODE_WORDS: Readonly<Record<ExitCode, string>> = {
  [ExitCode.InSync]: 'in sync',
  [ExitCode.CouldNotRun]: 'could not run',
  [ExitCode.SafetyStop]: 'stopped by a safety rail',
  [ExitCode.PartialFailure]: 'some items failed',
  [ExitCode.Interrupted]: 'stopped by a signal',
};

/** "0 in sync, 1 could not run, …": every code, in order. */
export function exitCodeList(): string {
  return Object.entries(EXIT_CODE_WORDS)
    .map(([code, words]) => `${code} ${words}`)
    .join(', ');
}
