/**
 * pino, JSON to stdout (journald keeps it), human-readable on a terminal. Every field that can
 * hold a secret is censored wherever it sits in the first few levels of a log object, so a
 * token never reaches a log line even when a whole config or request is logged.
 */
import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';

const SECRET_KEYS = [
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'clientSecret',
  'client_secret',
  'secret',
  'password',
  'authorization',
  'Authorization',
  'cookie',
];

/** `key`, `*.key`, `*.*.key`, `*.*.*.key` for each secret key. */
export const REDACT_PATHS = SECRET_KEYS.flatMap((key) =>
  ['', '*.', '*.*.', '*.*.*.'].map((prefix) => `${prefix}${key}`),
);

export const CENSOR = '[redacted]';

export interface LoggerOptions {
  readonly level: string;
  /** Where lines go; stdout by default. */
  readonly destination?: DestinationStream;
  /** Pretty-print; by default when writing to stdout on a terminal. */
  readonly pretty?: boolean;
  /**
   * Rewrites a line's message (a string argument of a log call): the composition puts the
   * commands it names in the form that runs here (domain/advice-form.ts), so journald's reader
   * of `docsync@acme` is told the commands for acme.
   */
  readonly message?: (text: string) => string;
}

export function createLogger(options: LoggerOptions): Logger {
  const message = options.message;
  const base = {
    level: options.level,
    base: { pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(message
      ? {
          hooks: {
            logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
              method.apply(
                this,
                args.map((a) => (typeof a === 'string' ? message(a) : a)),
              );
            },
          },
        }
      : {}),
  };
  const usePretty = options.pretty ?? (!options.destination && process.stdout.isTTY === true);
  if (usePretty) {
    return pino(
      base,
      pretty({ colorize: true, sync: true, destination: options.destination ?? 1 }),
    );
  }
  return pino(base, options.destination ?? pino.destination({ dest: 1, sync: false }));
}
