/**
 * The one line a command ends with when an error stops it. Most errors of the hierarchy already
 * are that sentence (a configuration problem, a state failure, a listener's address). The
 * service's errors are written for the log of one request ("POST /oauth/token: connect
 * ECONNREFUSED 127.0.0.1:9"), where a sync retries them; when one stops a command, the operator
 * also needs what it means for the whole and what to do (remote/service-advice.ts).
 */
import type { DocsyncError } from '../domain/errors.js';
import { ApiError } from '../remote/api-error.js';
import { serviceAdvice } from '../remote/service-advice.js';

export function failureSentence(error: DocsyncError): string {
  if (!(error instanceof ApiError)) return error.message;
  const advice = serviceAdvice(error);
  const what = headline(error);
  return advice === null || what === null ? error.message : `${what} (${error.message}). ${advice}`;
}

/** What the failure means for the command; null when the error's own message says it. */
function headline(error: ApiError): string | null {
  if (error.code === 'NETWORK') return 'docsync cannot reach the service';
  if (error.code === 'MALFORMED_RESPONSE') return 'The service did not answer as its API does';
  if (error.code !== 'HTTP_ERROR') return null;
  const status = error.status ?? 0;
  if (status === 401) return "The service refused docsync's access token";
  if (status === 403) return 'The service refused docsync access';
  if (status === 429 || status >= 500) return 'docsync gave up retrying the service for now';
  return null;
}
