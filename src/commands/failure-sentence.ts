/**
 * The one line a command ends with when an error stops it. Most errors of the hierarchy already
 * are that sentence (a configuration problem, a state failure, a listener's address). The
 * service's errors are written for the log of one request ("POST /oauth/token: connect
 * ECONNREFUSED 127.0.0.1:9"), where a sync retries them; when one stops a command, the operator
 * also needs what it means for the whole and what to do, with the key to check.
 */
import { assertNever } from '../domain/assert-never.js';
import type { DocsyncError } from '../domain/errors.js';
import { ApiError } from '../remote/api-error.js';

export function failureSentence(error: DocsyncError): string {
  return error instanceof ApiError ? serviceFailure(error) : error.message;
}

function serviceFailure(error: ApiError): string {
  const code = error.code;
  switch (code) {
    case 'NETWORK':
      return (
        `docsync cannot reach the service (${error.message}); check service.baseUrl and that ` +
        'this machine can reach it (DNS, firewall, proxy), then run docsync again.'
      );
    case 'HTTP_ERROR':
      return httpFailure(error);
    case 'MALFORMED_RESPONSE':
      return (
        `The service did not answer as its API does (${error.message}); check that ` +
        'service.baseUrl is the address of the API, not of the web application.'
      );
    case 'TRUNCATED':
    case 'OUTCOME_UNKNOWN':
      return error.message;
    default:
      return assertNever(code);
  }
}

function httpFailure(error: ApiError): string {
  const status = error.status ?? 0;
  if (status === 401) {
    return (
      `The service refused docsync's access token (${error.message}); run \`docsync auth ` +
      'login` to authorise docsync again (or set DOCSYNC_REFRESH_TOKEN).'
    );
  }
  if (status === 403) {
    return (
      `The service refused docsync access (${error.message}); the user who authorised it, or ` +
      'the scope it asked for (service.scope), may not do this: authorise again with a user ' +
      'who may (`docsync auth login`), or ask the service for the scope.'
    );
  }
  if (status === 429 || status >= 500) {
    return (
      `The service is busy or failing (${error.message}); docsync tried again and gave up for ` +
      'now: run docsync again later.'
    );
  }
  return error.message;
}
