/** `GET /oauth/authorize` and `POST /oauth/token` (parameters in the query string, api.md). */
import { type Route, readText } from './http-kit.js';
import type { OAuthServer } from './oauth.js';
import { badRequest, SimError } from './sim-error.js';

export function oauthRoutes(oauth: OAuthServer): Route[] {
  return [
    {
      method: 'GET',
      template: '/oauth/authorize',
      auth: false,
      handle: ({ query }) => {
        const clientId = query.get('client_id') ?? '';
        const redirectUri = query.get('redirect_uri') ?? '';
        if (query.get('response_type') !== 'code') throw badRequest('response_type must be code');
        if (!oauth.hasClient(clientId))
          throw new SimError(400, 'invalid_client', 'Unknown client_id');
        const target = parseRedirect(redirectUri);
        target.searchParams.set(
          'code',
          oauth.issueCode(clientId, redirectUri, query.get('scope') ?? 'cas'),
        );
        const state = query.get('state');
        if (state !== null) target.searchParams.set('state', state);
        return { status: 302, headers: { Location: target.toString() } };
      },
    },
    {
      method: 'POST',
      template: '/oauth/token',
      auth: false,
      handle: async ({ req, query }) => {
        // Grant parameters come in the query string (api.md); a form body may carry only the
        // client's credentials (client_secret_post).
        const form = /application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')
          ? new URLSearchParams(await readText(req))
          : new URLSearchParams();
        const clientId = oauth.authenticateClient(req.headers.authorization, form);
        const grantType = query.get('grant_type');
        if (grantType === 'authorization_code') {
          const code = required(query, 'code');
          return {
            status: 200,
            body: oauth.exchangeCode(clientId, code, query.get('redirect_uri')),
          };
        }
        if (grantType === 'refresh_token') {
          const token = required(query, 'refresh_token');
          return { status: 200, body: oauth.refresh(clientId, token, query.get('scope')) };
        }
        throw new SimError(400, 'unsupported_grant_type', `Unsupported grant_type ${grantType}`);
      },
    },
  ];
}

function required(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (!value) throw badRequest(`${name} is required in the query string`);
  return value;
}

function parseRedirect(text: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Reported below with the value.
  }
  throw badRequest(`redirect_uri must be an absolute http(s) URL, got "${text}"`);
}
