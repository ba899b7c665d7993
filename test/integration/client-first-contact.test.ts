/**
 * What a deployment may have to correct at its first contact with the real service, proven
 * against the simulator: the client-authentication style, the OAuth scope and the paths of the
 * route table (`service.clientAuth`, `service.scope`, `service.routes`).
 */
import { describe, expect, it } from 'vitest';
import { ApiError, AuthRequiredError } from '../../src/remote/api-error.js';
import type { ResponseInfo } from '../../src/remote/service-http.js';
import { useRemote } from '../helpers/remote.js';

const start = useRemote();

const tokenCalls = (sim: Awaited<ReturnType<typeof start>>['sim']) =>
  Object.entries(sim.admin.counters().api.byRoute)
    .filter(([route]) => route.startsWith('POST /oauth/token 200'))
    .reduce((n, [, count]) => n + count, 0);

describe('first contact: how the client authenticates', () => {
  it.each(['client_secret_basic', 'client_secret_post'] as const)(
    'gets an access token with %s',
    async (clientAuth) => {
      // The simulator refuses a request that carries both styles, so each proves itself alone.
      const { sim } = await start({ seed: 'demo' });
      const { clientWith } = await start({ seed: 'demo' }, { clientAuth });
      const remote = clientWith(sim.admin.mintRefreshToken(), sim.apiUrl);
      expect((await remote.client.statusTypes()).length).toBeGreaterThan(0);
      expect(remote.tokens.store.read()!.accessToken).toBeTruthy();
      expect(tokenCalls(sim)).toBe(1);
    },
  );

  it('says which keys to check when the service refuses the client', async () => {
    const { sim } = await start({ seed: 'demo' });
    // A client built for another simulator's secret: the service's secret differs.
    const { clientWith } = await start(
      { clientSecret: 'not-the-service-secret' },
      { clientAuth: 'client_secret_post' },
    );
    const remote = clientWith(sim.admin.mintRefreshToken(), sim.apiUrl);
    const error = await remote.client.statusTypes().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthRequiredError);
    expect((error as Error).message).toMatch(
      /refused docsync's client credentials \(401 invalid_client on refresh_token: Client authentication failed\)\. Check service\.clientId and service\.clientSecret .* and service\.clientAuth/,
    );
  });
});

describe('first contact: the OAuth scope', () => {
  it('asks for the configured scope, and a scope the grant lacks is a refusal naming service.scope', async () => {
    const { sim } = await start({ seed: 'demo' });
    const { clientWith: audit } = await start({}, { scope: 'audit' });
    const granted = audit(sim.admin.mintRefreshToken(undefined, 'audit'), sim.apiUrl);
    expect((await granted.client.statusTypes()).length).toBeGreaterThan(0);
    expect(granted.tokens.store.read()!.scope).toBe('audit');

    const { clientWith: cas } = await start({}, { scope: 'cas' });
    const refused = cas(sim.admin.mintRefreshToken(undefined, 'audit'), sim.apiUrl);
    const error = await refused.client.statusTypes().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthRequiredError);
    expect((error as Error).message).toContain('400 invalid_scope on refresh_token');
    expect((error as Error).message).toContain('Check service.scope');
  });
});

describe('first contact: corrected paths (service.routes)', () => {
  it('calls the configured path, and names it when the service does not know it', async () => {
    const answers: ResponseInfo[] = [];
    const { sim } = await start({ seed: 'demo' });
    const { clientWith } = await start(
      {},
      {
        // The simulator answers with and without `/cas`; the first proves the path is used.
        routes: { statusTypes: '/documents/statusTypes', listTrusts: '/cas/trust-list' },
        onResponse: (info) => answers.push(info),
      },
    );
    const remote = clientWith(sim.admin.mintRefreshToken(), sim.apiUrl);
    expect((await remote.client.statusTypes()).length).toBeGreaterThan(0);
    expect(answers.map((a) => `${a.route} ${a.status}`)).toEqual([
      'GET /documents/statusTypes 200',
    ]);
    const error = await (async () => {
      for await (const _trust of remote.client.trusts());
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/^GET \/cas\/trust-list answered 404/);
  });

  it('sends the token exchange to the configured token path', async () => {
    const { sim } = await start({ seed: 'demo' });
    const { clientWith } = await start({}, { routes: { token: '/oauth/access-token' } });
    const remote = clientWith(sim.admin.mintRefreshToken(), sim.apiUrl);
    const error = await remote.client.statusTypes().catch((e: unknown) => e);
    expect((error as ApiError).message).toBe('POST /oauth/access-token answered 404');
    const { clientWith: prefixed } = await start({}, { routes: { token: '/cas/oauth/token' } });
    const working = prefixed(sim.admin.mintRefreshToken(), sim.apiUrl);
    expect((await working.client.statusTypes()).length).toBeGreaterThan(0);
  });
});
