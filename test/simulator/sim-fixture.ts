/**
 * Test helpers for the simulator's contract tests: each test starts its own simulator on port 0
 * and talks to it with plain `fetch`, as any client of api.md would.
 */
import { afterEach } from 'vitest';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.js';

export interface Session {
  readonly sim: Simulator;
  readonly token: string;
  /** Calls the API with the bearer token; path relative to apiUrl. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
  /** Like call, and parses the JSON answer. */
  json<T = any>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; response: Response }>;
}

export function useSimulators(): (options?: SimulatorOptions) => Promise<Session> {
  const started: Simulator[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((sim) => sim.close()));
  });
  return async (options = {}) => {
    // Faults start after the token exchange, so every test begins with a working session.
    const { faults, ...rest } = options;
    const sim = await startSimulator({ rateLimitPerSecond: 0, ...rest });
    started.push(sim);
    const token = (await authorize(sim)).access_token;
    if (faults) sim.admin.setFaults(faults);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${sim.apiUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const json = async (method: string, path: string, body?: unknown) => {
      const response = await call(method, path, body);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, response };
    };
    return { sim, token, call, json };
  };
}

export function basic(sim: Simulator): string {
  return `Basic ${Buffer.from(`${sim.clientId}:${sim.clientSecret}`).toString('base64')}`;
}

/** The whole authorization-code flow: authorise (auto-approved), then exchange the code. */
export async function authorize(sim: Simulator): Promise<any> {
  const redirect = 'http://127.0.0.1:8789/callback';
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: sim.clientId,
    scope: 'cas',
    redirect_uri: redirect,
    state: 's1',
  });
  const answer = await fetch(`${sim.apiUrl}/oauth/authorize?${query}`, { redirect: 'manual' });
  const location = new URL(answer.headers.get('location')!);
  const code = location.searchParams.get('code')!;
  const exchange = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    scope: 'cas',
    redirect_uri: redirect,
  });
  const response = await fetch(`${sim.apiUrl}/oauth/token?${exchange}`, {
    method: 'POST',
    headers: { Authorization: basic(sim) },
  });
  if (response.status !== 200) throw new Error(`token exchange failed: ${response.status}`);
  return response.json();
}

/** Uploads bytes as the one `file` part of a multipart body. */
export function upload(
  session: Session,
  path: string,
  name: string,
  bytes: Uint8Array,
): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  return fetch(`${session.sim.apiUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${session.token}` },
    body: form,
  });
}
