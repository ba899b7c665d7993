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

const LOGIN_AGAIN =
  'Run `docsync auth login` to authorise docsync again (or set DOCSYNC_REFRESH_TOKEN).';

/**
 * The service will not let docsync in, and no retry changes that: the grant is gone (revoked,
 * expired, never given; only `docsync auth login` helps), or the service refused docsync's own
 * client credentials (`advice` then says which keys to check).
 */
export class AuthRequiredError extends DocsyncError {
  constructor(
    /** What happened, e.g. the service's refusal. */
    readonly reason: string,
    /** What to do about it. */
    readonly hint = LOGIN_AGAIN,
  ) {
    super('AUTH_REQUIRED', `${reason} ${hint}`);
  }
}

/** No grant was ever stored: authorising is a first time, not an "again". */
export function notAuthorisedYet(): AuthRequiredError {
  return new AuthRequiredError(
    'docsync has not been authorised yet.',
    'Run `docsync auth login` to authorise it (or set DOCSYNC_REFRESH_TOKEN).',
  );
}

/**
 * The token endpoint's 400 or 401. OAuth (RFC 6749, 5.2) says which party it refused, and the
 * reason decides the advice: a refused client or scope is the configuration's to fix, anything
 * else means the grant itself is gone. Without a code, a 401 is the client's authentication
 * failing, a 400 the grant.
 */
export function tokenRefused(status: number, body: string, grantType: string): AuthRequiredError {
  const { code, text } = oauthError(body);
  const said = `${status}${code ? ` ${code}` : ''} on ${grantType}${text ? `: ${text}` : ''}`;
  if (code === 'invalid_client' || code === 'unauthorized_client' || (!code && status === 401)) {
    return new AuthRequiredError(
      `The service refused docsync's client credentials (${said}).`,
      'Check service.clientId and service.clientSecret (or DOCSYNC_CLIENT_SECRET): they must be ' +
        'those of the application registered with the service; and service.clientAuth ' +
        '("client_secret_basic" or "client_secret_post"), how the service wants them sent.',
    );
  }
  if (code === 'invalid_scope') {
    return new AuthRequiredError(
      `The service refused docsync's authorisation (${said}).`,
      'Check service.scope against the scopes registered for the application, then run `docsync auth login`.',
    );
  }
  return new AuthRequiredError(
    `The service refused docsync's authorisation (${said}): the grant was revoked, expired or already used.`,
  );
}

/**
 * The service's code and message from an error body of either shape: api.md's
 * `{"error": {"code", "message"}}`, or OAuth's `{"error": "invalid_token", "error_description":
 * "…"}` (RFC 6749 5.2, RFC 6750 3.1), which a resource server in front of the API may answer
 * with too. Anything else gives neither.
 */
export function serviceErrorOf(body: unknown): { code?: string; text?: string } {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  if (typeof error === 'string') {
    const description = (body as { error_description?: unknown }).error_description;
    return { code: error, ...(typeof description === 'string' ? { text: description } : {}) };
  }
  const nested = error as { code?: unknown; message?: unknown } | null | undefined;
  return {
    ...(typeof nested?.code === 'string' ? { code: nested.code } : {}),
    ...(typeof nested?.message === 'string' ? { text: nested.message } : {}),
  };
}

function oauthError(body: string): { code?: string; text?: string } {
  try {
    return serviceErrorOf(JSON.parse(body));
  } catch {
    return {};
  }
}
