/**
 * The command handlers. Each takes the parsed options and returns when the command is done;
 * an error thrown here is reported by cli.ts with its exit code.
 */
import type { LogLevel } from '../config/schema.js';
import { apiCommand } from './api-command.js';
import { authLoginCommand } from './auth-login-command.js';
import { checkCommand } from './check-command.js';
import {
  conflictsListCommand,
  conflictsOpenCommand,
  conflictsResolveCommand,
} from './conflicts-command.js';
import { deletesDecideCommand, deletesListCommand } from './deletes-command.js';
import { demoCommand } from './demo-command.js';
import { initCommand } from './init-command.js';
import { openCommand } from './open-command.js';
import { type RunOptions, runDaemon, runOnce } from './run-command.js';
import { runSimulator, type SimulatorCommandOptions } from './simulator.js';
import { statusCommand } from './status-command.js';
import { trashListCommand, trashRestoreCommand } from './trash-command.js';

export interface GlobalOptions {
  readonly config?: string | undefined;
  /** Resolved from `--log-level`, `-v` and `-q` by program.ts. */
  readonly logLevel?: LogLevel | undefined;
}

export const commands = {
  init: initCommand,
  run: async (options: RunOptions & GlobalOptions) => {
    process.exitCode = options.once ? await runOnce(options) : await runDaemon(options);
  },
  status: statusCommand,
  check: checkCommand,
  authLogin: authLoginCommand,
  api: apiCommand,
  open: openCommand,
  simulator: (options: GlobalOptions & SimulatorCommandOptions) => runSimulator(options),
  demo: demoCommand,
  conflictsList: conflictsListCommand,
  conflictsOpen: conflictsOpenCommand,
  conflictsResolve: conflictsResolveCommand,
  trashList: trashListCommand,
  trashRestore: trashRestoreCommand,
  deletesList: deletesListCommand,
  deletesDecide: deletesDecideCommand,
};
