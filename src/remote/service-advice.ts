/**
 * What to do about a failure of the service, in one place: the sentence a command ends with
 * (commands/failure-sentence.ts) and the hints of `docsync check`'s lines (probe-failure.ts,
 * probe-authorize.ts, the token line of check-service.ts) give the same advice for the same
 * failure. Each is one sentence naming the key to check; null when there is none to give beyond
 * the service's own message (a 404 or a 422 of `docsync api` is the answer, not a fault).
 */
import { assertNever } from '../domain/assert-never.js';
import type { ApiError } from './api-error.js';
import type { KindRoute, Route, RouteName } from './routes.js';

export interface AdviceContext {
  /** `service.baseUrl`, when the caller knows it: the address that could not be reached. */
  readonly baseUrl?: string;
  /** The route that failed, when known: a 404's advice depends on where its path came from. */
  readonly route?: { readonly name: RouteName; readonly route: Route };
}

export function serviceAdvice(
  error: Pick<ApiError, 'code' | 'status'> & {
    readonly responseBody?: unknown;
    readonly message?: string;
  },
  context: AdviceContext = {},
): string | null {
  const code = error.code;
  switch (code) {
    case 'NETWORK':
      return unreachedAdvice(context.baseUrl);
    case 'MALFORMED_RESPONSE': {
      // A list not where `service.shapes.lists` says: the setting is what to correct.
      const setting = /service\.shapes\.lists\.\w+/.exec(error.message ?? '')?.[0];
      if (setting)
        return `Correct ${setting} to the key the service puts that list under, or remove it: docsync then reads the list wherever it is the answer's only one.`;
      // Text that is not JSON (a web page) comes from somewhere else than the API; JSON of
      // another shape comes from the API, whose answer docsync does not read yet.
      return typeof error.responseBody === 'string'
        ? 'Check that service.baseUrl is the address of the API, not of the web application: ' +
            'the answer is not JSON.'
        : 'The service answered, but not in the shape docsync reads (the field is named above): ' +
            'send the answer (`docsync check --save FILE` writes it down) to whoever maintains docsync.';
    }
    case 'HTTP_ERROR':
      return httpAdvice(error.status ?? 0, context);
    case 'TRUNCATED':
    case 'OUTCOME_UNKNOWN':
      // Their messages say what happened and what to do (retry; read the document).
      return null;
    default:
      return assertNever(code);
  }
}

/** No answer at all (refused, reset, DNS, timeout), also for a request made outside the client. */
export function unreachedAdvice(baseUrl: string | undefined): string {
  return (
    `Check that this machine can reach ${baseUrl ?? 'the service'} (DNS, proxy, firewall) and ` +
    'that service.baseUrl (or service.environment) names it.'
  );
}

function httpAdvice(status: number, context: AdviceContext): string | null {
  if (status === 401) {
    return 'Run `docsync auth login` to authorise docsync again (or set DOCSYNC_REFRESH_TOKEN).';
  }
  if (status === 403) {
    return (
      'The grant does not cover this: check service.scope against what the application is ' +
      'approved for, or authorise again (`docsync auth login`) as a user who may do it.'
    );
  }
  if (status === 404 && context.route) return missingPath(context.route);
  if (status === 429) {
    return 'The service is limiting the rate: try again later, and lower queue.requestsPerSecond if this persists.';
  }
  if (status >= 500) {
    return 'The service is failing: try again later, and tell the service provider if it persists.';
  }
  return null;
}

/** A route's path the service does not know: the advice depends on where the path came from. */
function missingPath({ name, route }: NonNullable<AdviceContext['route']>): string {
  if ('kind' in route) return missingKindPath(name, route as KindRoute);
  if (route.overridden) {
    return `The path set in service.routes.${name} is not on the service: correct it, or remove it to use the built-in one.`;
  }
  return route.source === 'ours'
    ? `This path is our assumption ([ours] in docs/api-contract.md): find the service's path and set it as service.routes.${name}.`
    : `Check service.baseUrl (or service.environment); if the service has moved this path, set service.routes.${name}.`;
}

/**
 * A document route of one owner kind the service does not know: its own setting corrects it
 * for that kind alone (the public pages put companies' and trusts' documents under different
 * prefixes).
 */
function missingKindPath(name: RouteName, route: KindRoute): string {
  const kinds = route.kind === 'company' ? 'companies' : 'trusts';
  const id = route.kind === 'company' ? '{companyId}' : '{trustId}';
  const set = `set it as ${route.setting} (a path with {owner} or ${id})`;
  if (route.overridden) {
    return `The path set for the ${kinds}' documents is not on the service: correct it, or ${set}.`;
  }
  const tried = name === 'listDocuments' ? ' (it was tried with and without the /cas prefix)' : '';
  return `The service does not know this path for the ${kinds}' documents${tried}: find the service's path and ${set}.`;
}
