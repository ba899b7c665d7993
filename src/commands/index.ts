/**
 * The command handlers. Each takes the parsed options and returns when the command is done;
 * an error thrown here is reported by cli.ts with its exit code.
 */
import { loadConfig } from '../config/load-config.js';
import { NotYetAvailableError } from '../domain/errors.js';
import { apiCommand } from './api-command.js';
import { authLoginCommand } from './auth-login-command.js';
import { openCommand } from './open-command.js';
import { runSimulator, type SimulatorCommandOptions } from './simulator.js';
import { statusCommand } from './status-command.js';

export interface GlobalOptions {
  readonly config?: string | undefined;
}

/** A command that lands in a later release still checks the configuration first. */
function notYet(name: string, needsConfig: boolean) {
  return async (options: GlobalOptions & Record<string, unknown>): Promise<void> => {
    if (needsConfig) loadConfig({ path: options.config });
    throw new NotYetAvailableError(name);
  };
}

export const commands = {
  run: notYet('run', true),
  status: statusCommand,
  authLogin: authLoginCommand,
  api: apiCommand,
  open: openCommand,
  simulator: (options: GlobalOptions & SimulatorCommandOptions) => runSimulator(options),
  demo: notYet('demo', false),
};
