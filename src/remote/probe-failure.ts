/**
 * A route that failed in `docsync check`: what it answered and what to do about it. A path
 * the service does not know is the likeliest first-contact failure, and the advice depends on
 * where the path came from: the configuration, our own assumption ([ours]), or the docs.
 */
import { type CheckLine, fail, warn } from '../domain/check-lines.js';
import type { DocsyncError } from '../domain/errors.js';
import { ApiError, AuthRequiredError } from './api-error.js';
import type { Route, RouteName } from './routes.js';
import { serviceAdvice } from './service-advice.js';
import type { ResponseInfo } from './service-http.js';

export interface Failure {
  readonly name: RouteName;
  readonly route: Route;
  readonly error: DocsyncError;
  /** The service's answer, when there was one. */
  readonly answer: ResponseInfo | undefined;
  /** The sync calls this route: a fail; otherwise a warning (it serves `docsync api`). */
  readonly needed: boolean;
  /** The sync goes on without this route, and this says how: a warning (route-prober.ts). */
  readonly degrades?: string;
}

export function failureLine(
  failure: Failure,
  baseUrl: string,
  data: Readonly<Record<string, unknown>>,
): CheckLine {
  const { error, answer, route } = failure;
  const label = `${route.method} ${route.path}`;
  // The error names the route first ("GET /x answered 404 ..."); the line's topic already does.
  const said = !(error instanceof ApiError)
    ? 'the service refused the access token'
    : error.message.startsWith(`${label} `)
      ? error.message.slice(label.length + 1)
      : error.message.startsWith(`${label}: `)
        ? error.message.slice(label.length + 2)
        : error.message;
  const time = answer ? ` in ${answer.durationMs} ms` : '';
  // A shape error comes after a good status: say both.
  const what =
    error instanceof ApiError && error.code === 'MALFORMED_RESPONSE' && answer
      ? `answered ${answer.status}, but its ${said}`
      : said;
  const status =
    answer?.status ?? (error instanceof ApiError && error.code === 'NETWORK' ? 'network' : null);
  const line = failure.needed ? fail : warn;
  const note = failure.needed
    ? ''
    : failure.degrades
      ? `; ${failure.degrades}`
      : ' (only the `api` command uses this route)';
  return line(label, `${what}${time}${note}`, hintFor(failure, baseUrl), {
    ...data,
    status,
    ...(answer ? { durationMs: answer.durationMs } : {}),
  });
}

function hintFor({ name, route, error }: Failure, baseUrl: string): string {
  if (!(error instanceof ApiError))
    return error instanceof AuthRequiredError ? error.hint : error.message;
  return (
    serviceAdvice(error, { baseUrl, route: { name, route } }) ??
    'The service refused the request; its message says why.'
  );
}
