/**
 * The browser half of `docsync auth login`: the authorise URL to open, and a one-shot listener
 * on `service.redirectUri` that takes the service's redirect, checks `state` (so a forged
 * redirect cannot plant someone else's grant) and hands back the code.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { DocsyncError } from '../domain/errors.js';
import { listenFailure } from '../domain/listen-failure.js';
import { ROUTES } from './routes.js';

export interface AuthorizeParams {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly scope: string;
  readonly redirectUri: string;
  /** The authorise path on `baseUrl` (`service.routes.authorize`); default the table's. */
  readonly authorizePath?: string;
}

export function newState(): string {
  return randomBytes(16).toString('hex');
}

export function authorizeUrl(params: AuthorizeParams, state: string): string {
  const path = params.authorizePath ?? ROUTES.authorize.path;
  const url = new URL(params.baseUrl.replace(/\/+$/, '') + path);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: params.clientId,
    scope: params.scope,
    redirect_uri: params.redirectUri,
    state,
  }).toString();
  return url.toString();
}

export interface RedirectListener {
  /** Resolves with the code of the first redirect whose state matches. */
  readonly code: Promise<string>;
  /** The port actually bound (the redirect URI's, or a free one when it says 0). */
  readonly port: number;
  close(): void;
}

/** How long `docsync auth login` waits for the browser to come back. */
export const LOGIN_WAIT_MS = 600_000;

/** Listens on the redirect URI's host and port until a matching redirect arrives or `timeoutMs`. */
export async function listenForRedirect(
  redirectUri: string,
  state: string,
  timeoutMs = LOGIN_WAIT_MS,
): Promise<RedirectListener> {
  const target = new URL(redirectUri);
  let settle: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (url.pathname !== target.pathname) {
      res.writeHead(404).end();
      return;
    }
    const error = url.searchParams.get('error');
    const got = url.searchParams.get('code');
    const ok = !error && got && url.searchParams.get('state') === state;
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      ok
        ? '<p>docsync is authorised. You can close this tab.</p>'
        : '<p>Authorisation failed; see the terminal.</p>',
    );
    if (ok) settle.resolve(got);
    else
      settle.reject(
        new DocsyncError(
          'AUTH_FAILED',
          `The service redirected without a valid code (${error ?? 'state mismatch'}).`,
        ),
      );
  });
  const timer = setTimeout(
    () =>
      settle.reject(
        new DocsyncError(
          'AUTH_TIMEOUT',
          `No redirect reached ${redirectUri} within ${Math.round(timeoutMs / 60_000)} minutes; ` +
            'run `docsync auth login` again, or pass the code from the browser with `--code`.',
        ),
      ),
    timeoutMs,
  );
  timer.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(listenFailure('service.redirectUri', target.host || target.hostname, error)),
    );
    server.listen(Number(target.port || 80), target.hostname.replace(/^\[|\]$/g, ''), resolve);
  });
  const close = () => {
    clearTimeout(timer);
    server.close();
  };
  code.then(close, close);
  return { code, port: (server.address() as { port: number }).port, close };
}
