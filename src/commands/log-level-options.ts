/**
 * The global flags that set the log level of one run (`--log-level`, `-v`, `-q`), resolved to
 * the one level the commands pass on, over the configuration's `log.level`.
 */
import { LOG_LEVELS, type LogLevel } from '../config/log-levels.js';

export { LOG_LEVELS };

/** `-vv`: a flag given twice counts twice (commander's argument parser for a counted flag). */
export function countRepeats(_value: string | undefined, previous: number | undefined): number {
  return (previous ?? 0) + 1;
}

/** The level the flags ask for; undefined leaves the configuration's `log.level`. */
export function logLevelOf(options: {
  logLevel?: LogLevel;
  verbose?: number;
  quiet?: number;
}): LogLevel | undefined {
  if (options.logLevel) return options.logLevel;
  if (options.verbose) return options.verbose > 1 ? 'trace' : 'debug';
  if (options.quiet) return options.quiet > 1 ? 'error' : 'warn';
  return undefined;
}
