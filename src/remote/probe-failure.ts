/**
 * A route that failed in `docsync check`: what it answered and what to do about it. A path
 * the service does not know is the likeliest first-contact failure, and the advice depends on
 * where the path came from: the configuration, our own assumption ([ours]), or the docs.
 */
import { type CheckLine, fail, warn } from '../domain/check-lines.js';
import type { DocsyncError } from '../domain/errors.js';
import { ApiError, AuthRequiredError } from './api-error.js';
import type { Route, RouteName } from './routes.js';
import type { ResponseInfo } from './service-http.js';

export interface Failure {
  readonly name: RouteName;
  readonly route: Route;
  readonly error: DocsyncError;
  /** The service's answer, when there was one. */
  readonly answer: ResponseInfo | undefined;
  /** The sync calls this route: a fail; otherwise a warning (it serves `docsync api`). */
  readonly needed: boolean;
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
  const note = failure.needed ? '' : ' (only `docsync api` uses this route)';
  return line(label, `${what}${time}${note}`, hintFor(failure, baseUrl), {
    ...data,
    status,
    ...(answer ? { durationMs: answer.durationMs } : {}),
  });
}

function hintFor({ name, route, error }: Failure, baseUrl: string): string {
  if (!(error instanceof ApiError))
    return error instanceof AuthRequiredError ? error.hint : error.message;
  switch (error.code) {
    case 'NETWORK':
      return `docsync cannot reach ${baseUrl}: check service.baseUrl (or service.environment), DNS, proxy and firewall.`;
    case 'MALFORMED_RESPONSE':
      return 'The answer differs from the shape in api.md, so docsync cannot read it; send this line (`docsync check --json`) to whoever maintains docsync.';
    default:
      break;
  }
  const status = error.status ?? 0;
  if (status === 404) {
    if (route.overridden) {
      return `The path set in service.routes.${name} is not on the service: correct it, or remove it to use the built-in one.`;
    }
    return route.source === 'ours'
      ? `This path is our assumption ([ours] in api.md): find the service's path and set it as service.routes.${name}.`
      : `Check service.baseUrl (or service.environment); if the service has moved this path, set service.routes.${name}.`;
  }
  if (status === 401) return 'The service refused the access token: run `docsync auth login`.';
  if (status === 403) {
    return 'The grant does not cover this route: check service.scope and what the application is approved for.';
  }
  if (status === 429)
    return 'The service is limiting the rate: lower queue.requestsPerSecond if this persists.';
  if (status >= 500)
    return 'The service failed: run `docsync check` again later, and tell the service provider if it persists.';
  return 'The service refused the request; its message says why.';
}
