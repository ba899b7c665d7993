import { describe, expect, it } from 'vitest';
import { authorize, basic, useSimulators } from './sim-fixture.js';

const start = useSimulators();

describe('simulator OAuth', () => {
  it('redirects the authorise request with a code and the state', async () => {
    const { sim } = await start();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: sim.clientId,
      scope: 'cas',
      redirect_uri: 'http://localhost:9/cb?x=1',
      state: 'abc',
    });
    const answer = await fetch(`${sim.apiUrl}/oauth/authorize?${query}`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('http://localhost:9/cb');
    expect(location.searchParams.get('x')).toBe('1');
    expect(location.searchParams.get('state')).toBe('abc');
    expect(location.searchParams.get('code')).toMatch(/.+/);
  });

  it('answers the token response of api.md and refuses a reused code', async () => {
    const { sim } = await start();
    const tokens = await authorize(sim);
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'cas', expires_in: 3600 });
    expect(tokens.access_token).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokens.refresh_token).toMatch(/^[0-9a-f-]{36}$/);
    const redirect = 'http://127.0.0.1:8789/callback';
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: sim.clientId,
      redirect_uri: redirect,
    });
    const answer = await fetch(`${sim.apiUrl}/oauth/authorize?${query}`, { redirect: 'manual' });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const exchange = `${sim.apiUrl}/cas/oauth/token?grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(redirect)}`;
    const post = () => fetch(exchange, { method: 'POST', headers: { Authorization: basic(sim) } });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(400);
  });

  it('needs the client credentials as Basic auth, parameters in the query string', async () => {
    const { sim } = await start();
    const token = sim.admin.mintRefreshToken();
    const url = `${sim.apiUrl}/oauth/token?grant_type=refresh_token&refresh_token=${token}`;
    const wrong = `Basic ${Buffer.from(`${sim.clientId}:nope`).toString('base64')}`;
    expect((await fetch(url, { method: 'POST', headers: { Authorization: wrong } })).status).toBe(
      401,
    );
    expect((await fetch(url, { method: 'POST' })).status).toBe(401);
    const form = await fetch(`${sim.apiUrl}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: basic(sim), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&refresh_token=${token}`,
    });
    expect(form.status).toBe(400);
    expect(
      (await fetch(url, { method: 'POST', headers: { Authorization: basic(sim) } })).status,
    ).toBe(200);
  });

  it('also takes the client credentials in a form body (client_secret_post), never both ways', async () => {
    const { sim } = await start();
    const url = (token: string) =>
      `${sim.apiUrl}/oauth/token?grant_type=refresh_token&refresh_token=${token}`;
    const form = (secret: string) =>
      new URLSearchParams({ client_id: sim.clientId, client_secret: secret }).toString();
    const post = (token: string, secret: string, headers: Record<string, string> = {}) =>
      fetch(url(token), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: form(secret),
      });
    expect((await post(sim.admin.mintRefreshToken(), sim.clientSecret)).status).toBe(200);
    expect((await post(sim.admin.mintRefreshToken(), 'nope')).status).toBe(401);
    const both = await post(sim.admin.mintRefreshToken(), sim.clientSecret, {
      Authorization: basic(sim),
    });
    expect(both.status).toBe(400);
    expect(((await both.json()) as any).error.code).toBe('invalid_request');
  });

  it('refuses a refresh that asks for a scope the grant does not have', async () => {
    const { sim } = await start();
    const refresh = (token: string, scope: string) =>
      fetch(
        `${sim.apiUrl}/oauth/token?grant_type=refresh_token&refresh_token=${token}&scope=${scope}`,
        { method: 'POST', headers: { Authorization: basic(sim) } },
      );
    const narrow = await refresh(sim.admin.mintRefreshToken(undefined, 'audit'), 'cas');
    expect(narrow.status).toBe(400);
    expect(((await narrow.json()) as any).error.code).toBe('invalid_scope');
    const same = await refresh(sim.admin.mintRefreshToken(undefined, 'audit'), 'audit');
    expect(((await same.json()) as any).scope).toBe('audit');
  });

  it('rotates the refresh token: the old one stops working', async () => {
    const { sim } = await start();
    const first = sim.admin.mintRefreshToken();
    const refresh = (token: string) =>
      fetch(`${sim.apiUrl}/oauth/token?grant_type=refresh_token&refresh_token=${token}&scope=cas`, {
        method: 'POST',
        headers: { Authorization: basic(sim) },
      });
    const answer = await refresh(first);
    expect(answer.status).toBe(200);
    const tokens = (await answer.json()) as any;
    expect(tokens.refresh_token).not.toBe(first);
    const again = await refresh(first);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      error: { code: 'invalid_grant', message: expect.any(String) },
    });
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('answers 401 to a missing, unknown or expired bearer token', async () => {
    const { sim, call } = await start({ accessTokenTtlSeconds: 0.3 });
    expect((await call('GET', '/cas/companies?offset=0&limit=10')).status).toBe(200);
    const none = await fetch(`${sim.apiUrl}/cas/companies?offset=0&limit=10`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.code).toBe('unauthorized');
    const unknown = await fetch(`${sim.apiUrl}/cas/companies?offset=0&limit=10`, {
      headers: { Authorization: 'Bearer nope' },
    });
    expect(unknown.status).toBe(401);
    await new Promise((r) => setTimeout(r, 350));
    expect((await call('GET', '/cas/companies?offset=0&limit=10')).status).toBe(401);
  });
});
