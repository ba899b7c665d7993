/**
 * Errors of the service and of the way to it. One class with a `code`, like got's RequestError:
 * the engine decides on `code` and `status`, a log line shows `message`, and the raw response
 * body stays on a non-enumerable property so it never bloats a log.
 */
import { DocsyncError } from '../domain/errors.js';
import { ExitCode } from '../domain/exit-codes.js';

export type ApiErrorCode =
  /** The service answered with an error status. */
  | 'HTTP_ERROR'
  /** No answer: connection refused or reset, DNS, timeout. */
  | 'NETWORK'
  /** The answer did not match the contract. */
  | 'MALFORMED_RESPONSE'
  /** A download came back shorter or longer than announced. */
  | 'TRUNCATED'
  /** A non-idempotent request may or may not have been applied; read the service to find out. */
  | 'OUTCOME_UNKNOWN';

export class ApiError extends DocsyncError {
  declare readonly code: ApiErrorCode;
  /** HTTP status when the service answered. */
  readonly status: number | undefined;
  /** `GET /cas/trusts/{trustId}` style: the route template, never the ids or query. */
  readonly route: string;
  /** The service's machine code from `{"error": {"code"}}`, when it sent one. */
  readonly serviceCode: string | undefined;
  /** Seconds the service asked us to wait (429). */
  readonly retryAfterSeconds: number | undefined;
  /** Node's error code for network failures (ECONNRESET, ETIMEDOUT, ...). */
  readonly networkCode: string | undefined;
  declare readonly responseBody: unknown;

  constructor(
    code: ApiErrorCode,
    message: string,
    details: {
      route: string;
      status?: number | undefined;
      serviceCode?: string | undefined;
      retryAfterSeconds?: number | undefined;
      networkCode?: string | undefined;
      responseBody?: unknown;
      cause?: unknown;
    },
  ) {
    super(code, message, { cause: details.cause, exitCode: ExitCode.CouldNotRun });
    this.route = details.route;
    this.status = details.status;
    this.serviceCode = details.serviceCode;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.networkCode = details.networkCode;
    Object.defineProperty(this, 'responseBody', { value: details.responseBody, enumerable: false });
  }
}

/** The grant is gone (revoked, expired, never given): only `docsync auth login` helps. */
export class AuthRequiredError extends DocsyncError {
  constructor(
    /** What happened, e.g. the service's refusal. */
    readonly reason: string,
    /** What to do about it. */
    readonly hint = 'Run `docsync auth login` to authorise docsync again (or set DOCSYNC_REFRESH_TOKEN).',
  ) {
    super('AUTH_REQUIRED', `${reason} ${hint}`);
  }
}
