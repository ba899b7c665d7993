/**
 * docsync's engine wired as `compose.ts` wires it (the real API client, the fs store, SQLite on a
 * real file), minus the config file: the benchmark sets the few knobs it measures directly.
 */

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { REAL_CLOCK } from '../../src/domain/clock.js';
import { serviceKey } from '../../src/domain/service-identity.js';
import type { EngineDeps } from '../../src/engine/engine-deps.js';
import { defaultEngineSettings } from '../../src/engine/engine-settings.js';
import { EntityLocks } from '../../src/engine/entity-locks.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { createRemote, type Remote } from '../../src/remote/create-client.js';
import type { ResponseInfo } from '../../src/remote/service-http.js';
import { StateStore } from '../../src/state/state-store.js';
import type { SimProcess } from './sim-process.js';

export interface BenchEngine {
  readonly deps: EngineDeps;
  readonly remote: Remote;
  readonly state: StateStore;
  readonly root: string;
  close(): void;
}

export interface EngineOptions {
  readonly requestsPerSecond?: number;
  readonly concurrency?: number;
  readonly onResponse?: (info: ResponseInfo) => void;
}

export async function openEngine(
  sim: SimProcess,
  dir: string,
  options: EngineOptions = {},
): Promise<BenchEngine> {
  const concurrency = options.concurrency ?? 4;
  const stateFile = path.join(dir, 'state', 'docsync.db');
  mkdirSync(path.dirname(stateFile), { recursive: true });
  const state = StateStore.open(stateFile);
  state.tokens.seedRefreshToken(await sim.mintRefreshToken());
  const remote = createRemote({
    time: REAL_CLOCK,
    // The simulator's link host is plain http on loopback: allowed only when listed.
    links: { hosts: [sim.linkUrl] },
    baseUrl: sim.apiUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    scope: 'cas',
    tokenStore: state.tokens,
    requestsPerSecond: options.requestsPerSecond ?? Number.POSITIVE_INFINITY,
    concurrency,
    ...(options.onResponse ? { onResponse: options.onResponse } : {}),
  });
  const root = path.join(dir, 'documents');
  const deps: EngineDeps = {
    remote: remote.client,
    // With the service, as the daemon's store (compose.ts): its root marker names it.
    local: new FsLocalStore({
      root,
      settleSeconds: 0,
      metaCache: state.metaFiles,
      service: serviceKey(sim.apiUrl),
    }),
    state,
    logger: pino({ level: 'silent' }),
    now: Date.now,
    clockOffsetMs: () => remote.clock.offsetMs,
    settings: defaultEngineSettings(sim.webUrl, { concurrency }),
    locks: new EntityLocks(),
  };
  return {
    deps,
    remote,
    state,
    root,
    close() {
      remote.queue.clear();
      state.close();
    },
  };
}
