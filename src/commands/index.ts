/**
 * The command handlers. Each takes the parsed options and the terminal it runs on, and returns
 * when the command is done, with its exit code where it has one of its own; an error thrown here
 * is reported by program.ts with its exit code. A command's modules are loaded when it runs, so
 * `docsync status` does not wait for the HTTP client, the daemon or the simulator to load.
 */
import type { LogLevel } from '../config/schema.js';
import type { ApiCommandOptions } from './api-command.js';
import type { CheckCommandOptions } from './check-command.js';
import type { InitFlags } from './init-answers.js';
import type { OpenCommandOptions } from './open-command.js';
import type { RunOptions } from './run-command.js';
import type { SimulatorCommandOptions } from './simulator.js';
import type { Terminal } from './terminal.js';

export interface GlobalOptions {
  readonly config?: string | undefined;
  /** Resolved from `--log-level`, `-v` and `-q` by program.ts. */
  readonly logLevel?: LogLevel | undefined;
}

interface OperatorOptions extends GlobalOptions {
  readonly json?: boolean;
}

/** The handlers bound to `terminal`; `done` is told the exit code each returned, if any. */
export function commandsOn(terminal: Terminal, done: (code: number | undefined) => void) {
  // A handler's result is its exit code when it is a number; anything else is "done" (0).
  const on =
    <A extends unknown[]>(handler: (...args: A) => Promise<unknown>) =>
    async (...args: A): Promise<void> => {
      const returned = await handler(...args);
      done(typeof returned === 'number' ? returned : undefined);
    };
  return {
    init: on(async (options: InitFlags) =>
      (await import('./init-command.js')).initCommand(options, terminal),
    ),
    run: on(async (options: RunOptions) => {
      const { runDaemon, runOnce } = await import('./run-command.js');
      return options.once ? runOnce(options, terminal) : runDaemon(options, terminal);
    }),
    status: on(async (options: GlobalOptions & { json?: boolean }) =>
      (await import('./status-command.js')).statusCommand(options, terminal),
    ),
    check: on(async (options: CheckCommandOptions) =>
      (await import('./check-command.js')).checkCommand(options, terminal),
    ),
    authLogin: on(async (options: GlobalOptions & { code?: string }) =>
      (await import('./auth-login-command.js')).authLoginCommand(options, terminal),
    ),
    api: on(async (options: ApiCommandOptions) =>
      (await import('./api-command.js')).apiCommand(options, terminal),
    ),
    open: on(async (options: OpenCommandOptions) =>
      (await import('./open-command.js')).openCommand(options, terminal),
    ),
    simulator: on(async (options: GlobalOptions & SimulatorCommandOptions) =>
      (await import('./simulator.js')).runSimulator(options, terminal),
    ),
    demo: on(async (options: GlobalOptions) =>
      (await import('./demo-command.js')).demoCommand(options, terminal),
    ),
    conflictsList: on(async (options: OperatorOptions & { all?: boolean }) =>
      (await import('./conflicts-command.js')).conflictsListCommand(options, terminal),
    ),
    conflictsOpen: on(async (options: OperatorOptions & { id: string }) =>
      (await import('./conflicts-command.js')).conflictsOpenCommand(options, terminal),
    ),
    conflictsResolve: on(async (options: OperatorOptions & { id: string; choice: string }) =>
      (await import('./conflicts-command.js')).conflictsResolveCommand(options, terminal),
    ),
    trashList: on(async (options: OperatorOptions) =>
      (await import('./trash-command.js')).trashListCommand(options, terminal),
    ),
    trashRestore: on(async (options: OperatorOptions & { id: string }) =>
      (await import('./trash-command.js')).trashRestoreCommand(options, terminal),
    ),
    deletesList: on(async (options: OperatorOptions) =>
      (await import('./deletes-command.js')).deletesListCommand(options, terminal),
    ),
    deletesDecide: on(
      async (
        decision: 'approve' | 'discard',
        options: OperatorOptions & { ids: readonly string[]; all?: boolean },
      ) => (await import('./deletes-command.js')).deletesDecideCommand(decision, options, terminal),
    ),
  };
}

export type Commands = ReturnType<typeof commandsOn>;
