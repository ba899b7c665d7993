/**
 * The authorise route, as `docsync auth login` will send a browser to it: called once without a
 * token and without following the redirect. A refusal of the client id, the scope or the
 * redirect URI shows here, before anyone tries to log in.
 */
import { type Got, got } from 'got';
import { type CheckLine, fail, ok } from '../domain/check-lines.js';
import { USER_AGENT } from './api-wire.js';
import { authorizeUrl } from './auth-login.js';
import { type Route, routeLabel } from './routes.js';
import { unreachedAdvice } from './service-advice.js';

export interface AuthorizeProbe {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly scope: string;
  readonly redirectUri: string;
}

const HINT =
  'Check service.clientId, service.scope and service.redirectUri (it must be one of the redirect URLs registered for the application).';

export async function probeAuthorize(
  params: AuthorizeProbe,
  route: Route,
  /** The got to send it on (the client's, so `check --save` records it). */
  client: Got = got,
): Promise<CheckLine> {
  const label = routeLabel(route);
  const data = {
    route: 'authorize',
    method: route.method,
    path: route.path,
    source: route.source,
    overridden: route.overridden,
  };
  const url = authorizeUrl({ ...params, authorizePath: route.path }, 'docsync-check');
  const started = Date.now();
  let status: number;
  let location: string | undefined;
  let body: string;
  try {
    const response = await client(url, {
      headers: { 'user-agent': USER_AGENT },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: 15_000 },
    });
    ({ statusCode: status, body } = response);
    location = response.headers.location;
  } catch (error) {
    return fail(
      label,
      `not reached: ${(error as Error).message}`,
      unreachedAdvice(params.baseUrl),
      { ...data, status: 'network' },
    );
  }
  const took = { ...data, status, durationMs: Date.now() - started };
  if (status >= 300 && status < 400) {
    const refused = location ? redirectError(location, url) : null;
    if (refused) return fail(label, `answered ${status} with error=${refused}`, HINT, took);
    const to = location ? new URL(location, url).host : 'nowhere';
    return ok(label, `answered ${status}: the browser goes on to ${to}`, took);
  }
  if (status < 300) return ok(label, `answered ${status}: a page for the browser`, took);
  return fail(label, `answered ${status}: ${body.replace(/\s+/g, ' ').slice(0, 200)}`, HINT, took);
}

/** The `error` of an OAuth error redirect (RFC 6749 §4.1.2.1), or null. */
function redirectError(location: string, base: string): string | null {
  try {
    return new URL(location, base).searchParams.get('error');
  } catch {
    return null;
  }
}
