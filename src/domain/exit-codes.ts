/** Exit codes of `docsync run --once`, as promised in daemon.md. */
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
