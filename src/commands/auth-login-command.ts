/**
 * `docsync auth login [--code CODE]`: the authorization-code grant. Without --code it prints
 * the URL to open and waits for the service's redirect on `service.redirectUri`.
 */
import { openApp } from '../compose.js';
import { authorizeUrl, listenForRedirect, newState } from '../remote/auth-login.js';
import type { GlobalOptions } from './index.js';

export async function authLoginCommand(options: GlobalOptions & { code?: string }): Promise<void> {
  const app = openApp({ config: options.config, logLevel: options.logLevel, logToStderr: true });
  try {
    const { service } = app.config;
    let code = options.code;
    if (!code) {
      const state = newState();
      const listener = await listenForRedirect(service.redirectUri, state);
      const url = authorizeUrl({ ...service }, state);
      process.stdout.write(
        `Open this address in a browser and approve docsync:\n\n  ${url}\n\nWaiting for the redirect to ${service.redirectUri} ...\n`,
      );
      code = await listener.code;
    }
    const tokens = await app.remote.tokens.exchangeCode(code, service.redirectUri);
    const expires = tokens.accessTokenExpiresAt
      ? new Date(tokens.accessTokenExpiresAt).toISOString()
      : 'unknown';
    process.stdout.write(
      `docsync is authorised (access token valid until ${expires}); tokens stored in ${app.config.state.path}.\n`,
    );
  } finally {
    app.close();
  }
}
