/**
 * `docsync auth login [--code CODE]`: the authorization-code grant. Without --code it prints
 * the URL to open and waits for the service's redirect on `service.redirectUri`. docsync mostly
 * runs on a server without a browser, where that redirect can never arrive by itself: the
 * instructions say so, and how to finish there (`--code`, or an SSH tunnel).
 */
import { openApp } from '../compose.js';
import { oauthScope } from '../config/schema.js';
import { adviceCommand } from '../domain/advice-form.js';
import { authorizeUrl, LOGIN_WAIT_MS, listenForRedirect, newState } from '../remote/auth-login.js';
import { routeTable } from '../remote/routes.js';
import { adviceFormHere } from './advice-here.js';
import type { GlobalOptions } from './index.js';
import type { Terminal } from './terminal.js';

export async function authLoginCommand(
  options: GlobalOptions & { code?: string },
  terminal: Terminal,
): Promise<void> {
  // It makes the state on a new install, but never upgrades one the old daemon may be using.
  const app = openApp(terminal, {
    config: options.config,
    logLevel: options.logLevel,
    logToStderr: true,
    upgradeState: false,
  });
  try {
    const { service } = app.config;
    let code = options.code;
    if (!code) {
      const state = newState();
      const listener = await listenForRedirect(service.redirectUri, state);
      const authorizePath = routeTable(service.routes).authorize.path;
      const url = authorizeUrl(
        { ...service, scope: oauthScope(service.scope), authorizePath },
        state,
      );
      const again = adviceCommand(adviceFormHere(terminal, options.config), 'auth login');
      terminal.stdout.write(instructions(url, service.redirectUri, again));
      code = await listener.code;
    }
    const tokens = await app.remote.tokens.exchangeCode(code, service.redirectUri);
    const expires = tokens.accessTokenExpiresAt
      ? new Date(tokens.accessTokenExpiresAt).toISOString()
      : 'unknown';
    terminal.stdout.write(
      `docsync is authorised (access token valid until ${expires}); tokens stored in ${app.config.state.path}.\n`,
    );
  } finally {
    app.close();
  }
}

/** `again`: this command as it runs here, to finish with `--code`. */
function instructions(url: string, redirectUri: string, again: string): string {
  const target = new URL(redirectUri);
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const minutes = Math.round(LOGIN_WAIT_MS / 60_000);
  return [
    'Open this address in a browser, sign in to the service and approve docsync:',
    '',
    `  ${url}`,
    '',
    `docsync now waits up to ${minutes} minutes (Ctrl-C stops it) for the service to send that`,
    `browser back to ${redirectUri}, where docsync listens on this machine.`,
    '',
    'No browser on this machine (a server)? Either:',
    '  - open the address on another machine and approve; that browser then fails to load',
    `    ${redirectUri}?code=...&state=... : copy the value of code= from its address bar`,
    '    and run here, soon (the code expires):',
    '',
    `      ${again} --code <the code>`,
    '',
    `  - or forward the port first, from the machine with the browser: ssh -L ${port}:${target.hostname}:${port} <this server>`,
    '    and open the address there; the redirect then reaches docsync through the tunnel.',
    '',
  ].join('\n');
}
