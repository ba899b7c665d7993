/**
 * The composition root: the only place that picks real adapters (the fs folder, SQLite, the HTTP
 * client) and wires them together. Commands ask for what they need (config only, config + state,
 * or the whole client) and close it after; the engine and the daemon take what they are given.
 */

import type { DestinationStream } from 'pino';
import { loadConfig } from './config/load-config.js';
import { type Config, type LogLevel, oauthScope } from './config/schema.js';
import { otherService, serviceKey } from './domain/service-identity.js';
import type { EngineDeps } from './engine/engine-deps.js';
import { engineSettings } from './engine/engine-settings.js';
import { EntityLocks } from './engine/entity-locks.js';
import { FsLocalStore } from './local/fs-local-store.js';
import { createLogger, type Logger } from './log/create-logger.js';
import { type ClientOptions, createRemote, type Remote } from './remote/create-client.js';
import { prefixFoundLine } from './remote/document-prefixes.js';
import { routeTable } from './remote/routes.js';
import type { ResponseInfo } from './remote/service-http.js';
import { explainStateFailure } from './state/state-failure.js';
import { StateStore } from './state/state-store.js';

export interface AppOptions {
  readonly config?: string | undefined;
  /** The command line's log level (`--log-level`, `-v`, `-q`), over the file's. */
  readonly logLevel?: LogLevel | undefined;
  /** Commands that print results on stdout log to stderr instead. */
  readonly logToStderr?: boolean;
  /** Told of every answer of the service (metrics). */
  readonly onResponse?: (info: ResponseInfo) => void;
  /** Where JSON log lines go instead of stdout (tests read the log an operator would). */
  readonly logDestination?: DestinationStream;
  /** Only open a state database that is there, as it is: the command only reads the state. */
  readonly existingState?: boolean;
  /**
   * False: create a missing state database, but never upgrade one that is there (`auth login`,
   * `api`); only `docsync run` upgrades it (open-database.ts).
   */
  readonly upgradeState?: boolean;
}

export interface App {
  readonly config: Config;
  readonly logger: Logger;
  readonly state: StateStore;
  readonly remote: Remote;
  close(): void;
}

/**
 * `existing`: open the state database as it is (commands that only read it); `upgrade: false`:
 * create a missing one, but take one that is there as it is (open-database.ts).
 * `sameService`: refuse a state of another service (domain/service-identity.ts) before anything
 * is stored in it or a client can send its token: that service's login must not go to the
 * configured one, nor its ids be synced there.
 */
export function openState(
  config: Config,
  options: { existing?: boolean; upgrade?: boolean; sameService?: boolean } = {},
): StateStore {
  const state = StateStore.open(config.state.path, {
    existing: options.existing ?? false,
    upgrade: options.upgrade ?? true,
  });
  try {
    if (options.sameService) {
      const other = otherService(
        { kind: 'state', statePath: config.state.path },
        state.settings.serviceUrl(),
        config.service.baseUrl,
      );
      if (other) throw other;
    }
    // DOCSYNC_REFRESH_TOKEN: stored unless it is the seed we already took (and since rotated).
    if (config.service.refreshToken) state.tokens.seedRefreshToken(config.service.refreshToken);
    return state;
  } catch (error) {
    state.close();
    throw explainStateFailure(error, config.state.path);
  }
}

export function openApp(options: AppOptions = {}): App {
  const config = loadConfig({ path: options.config, logLevel: options.logLevel });
  const logger = createLogger({
    level: config.log.level,
    ...(options.logToStderr ? { destination: process.stderr, pretty: process.stderr.isTTY } : {}),
    ...(options.logDestination ? { destination: options.logDestination, pretty: false } : {}),
  });
  const state = openState(config, {
    existing: options.existingState ?? false,
    upgrade: options.upgradeState ?? true,
    sameService: true,
  });
  const remote = createRemote({
    ...clientOptions(config),
    tokenStore: state.tokens,
    prefixStore: state.settings,
    onPrefixFound: (found) => logger.info(found, prefixFoundLine(found)),
    onResponse: (info) => {
      logger.trace(info, 'service answered');
      options.onResponse?.(info);
    },
  });
  let closed = false;
  return {
    config,
    logger,
    state,
    remote,
    close: () => {
      if (closed) return;
      closed = true;
      remote.queue.clear();
      state.close();
      logger.flush();
    },
  };
}

/** The client's options from the configuration: the service's URL, credentials and routes. */
export function clientOptions(config: Config): Omit<ClientOptions, 'tokenStore'> {
  const { service, queue } = config;
  return {
    baseUrl: service.baseUrl,
    clientId: service.clientId,
    clientSecret: service.clientSecret,
    scope: oauthScope(service.scope),
    clientAuth: service.clientAuth,
    routes: routeTable(service.routes),
    requestsPerSecond: queue.requestsPerSecond,
    concurrency: queue.concurrency,
  };
}

/** The folder adapter on `store.root`; it remembers the `.document.json` contents in the state. */
export function localStore(app: Pick<App, 'config' | 'state'>): FsLocalStore {
  return new FsLocalStore({
    root: app.config.store.root,
    ignore: [...app.config.ignore],
    settleSeconds: app.config.settleSeconds,
    metaCache: app.state.metaFiles,
    service: serviceKey(app.config.service.baseUrl),
  });
}

/** The engine's dependencies, with the real folder adapter on `store.root`. */
export function engineDeps(app: App, local: FsLocalStore = localStore(app)): EngineDeps {
  return {
    remote: app.remote.client,
    local,
    state: app.state,
    logger: app.logger,
    now: Date.now,
    clockOffsetMs: () => app.remote.clock.offsetMs,
    settings: engineSettings(app.config),
    locks: new EntityLocks((violation) =>
      app.logger.error({ violation }, 'an entity was worked on without its lock'),
    ),
  };
}
