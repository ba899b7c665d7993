import path from 'node:path';
import { afterEach } from 'vitest';
import { REAL_CLOCK } from '../../src/domain/clock.js';
import { createRemote, type Remote } from '../../src/remote/create-client.js';
import type { MalformedEntry } from '../../src/remote/remote-store.js';
import type { RetryPolicy } from '../../src/remote/retry-delay.js';
import { routeTable } from '../../src/remote/routes.js';
import type { ResponseInfo } from '../../src/remote/service-http.js';
import type { ClientAuth, TokenStore } from '../../src/remote/token-manager.js';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { useTempDir } from './temp-dir.js';

/** Retries fast enough for tests, with the production shape. */
export const FAST_RETRY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 5, maxDelayMs: 50 };

export interface RemoteFixture {
  readonly sim: Simulator;
  readonly remote: Remote;
  readonly tokens: TokenStore;
  /** Another client of the same simulator, with its own state file, seeded with `refreshToken`. */
  readonly clientWith: (refreshToken: string, baseUrl?: string) => Remote;
}

/**
 * A simulator on port 0 per test and a client authorised against it, its tokens in a real
 * SQLite state file; everything closed after the test.
 */
export function useRemote() {
  const tempDir = useTempDir('docsync-remote-');
  const sims: Simulator[] = [];
  const stores: StateStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) store.close();
    await Promise.all(sims.splice(0).map((sim) => sim.close()));
  });
  return async (
    simOptions: SimulatorOptions = {},
    clientOptions: {
      requestsPerSecond?: number;
      concurrency?: number;
      retry?: RetryPolicy;
      baseUrl?: string;
      onResponse?: (info: ResponseInfo) => void;
      scope?: string;
      clientAuth?: ClientAuth;
      /** `service.routes`: corrected paths by route name. */
      routes?: Record<string, string>;
    } = {},
  ): Promise<RemoteFixture> => {
    const sim = await startSimulator(simOptions);
    sims.push(sim);
    const clientWith = (refreshToken: string, baseUrl = clientOptions.baseUrl ?? sim.apiUrl) => {
      const state = StateStore.open(path.join(tempDir(), 'docsync.db'));
      stores.push(state);
      state.tokens.seedRefreshToken(refreshToken);
      return createRemote({
        time: REAL_CLOCK,
        // The simulator's link host is plain http on loopback: allowed only when listed.
        links: { hosts: [sim.linkUrl] },
        baseUrl,
        clientId: sim.clientId,
        clientSecret: sim.clientSecret,
        scope: clientOptions.scope ?? 'cas',
        routes: routeTable(clientOptions.routes),
        ...(clientOptions.clientAuth ? { clientAuth: clientOptions.clientAuth } : {}),
        tokenStore: state.tokens,
        requestsPerSecond: clientOptions.requestsPerSecond ?? Number.POSITIVE_INFINITY,
        concurrency: clientOptions.concurrency ?? 4,
        retry: clientOptions.retry ?? FAST_RETRY,
        ...(clientOptions.onResponse ? { onResponse: clientOptions.onResponse } : {}),
      });
    };
    const remote = clientWith(sim.admin.mintRefreshToken());
    return { sim, remote, tokens: remote.tokens.store, clientWith };
  };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A list every record of which must be readable: a record in error fails the test. */
export async function collectRead<T extends object>(
  items: AsyncIterable<T | MalformedEntry>,
): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    if ('malformed' in item) throw item.error;
    out.push(item);
  }
  return out;
}
