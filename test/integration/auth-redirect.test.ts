import { describe, expect, it } from 'vitest';
import { authorizeUrl, listenForRedirect, newState } from '../../src/remote/auth-login.js';
import { useSimulators } from '../helpers/simulator.js';

const startSim = useSimulators();

describe('auth login redirect', () => {
  it('receives the code from the service redirect, as a browser would deliver it', async () => {
    const sim = await startSim();
    const state = newState();
    const listener = await listenForRedirect('http://127.0.0.1:0/callback', state, 5000);
    const redirectUri = `http://127.0.0.1:${listener.port}/callback`;
    const url = authorizeUrl(
      { baseUrl: sim.apiUrl, clientId: sim.clientId, scope: 'cas', redirectUri },
      state,
    );
    const page = await fetch(url); // follows the 302 to our listener, like a browser
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('docsync is authorised');
    expect(await listener.code).toMatch(/.+/);
  });

  it('refuses a redirect whose state does not match, so a forged link cannot plant a grant', async () => {
    const listener = await listenForRedirect('http://127.0.0.1:0/callback', 'expected-state', 5000);
    const outcome = listener.code.catch((e: unknown) => e);
    const forged = await fetch(`http://127.0.0.1:${listener.port}/callback?code=evil&state=other`);
    expect(forged.status).toBe(400);
    expect(String(await outcome)).toContain('state mismatch');
  });
});
