/**
 * The composition root: the only place that picks real adapters (the fs folder, SQLite, the HTTP
 * client) and wires them together. Commands ask for what they need (config only, config + state,
 * or the whole client) and close it after; the engine and the daemon take what they are given.
 */

import type { DestinationStream } from 'pino';
import { adviceFormHere } from './commands/advice-here.js';
import { isProcessStdout, type Terminal } from './commands/terminal.js';
import { loadConfig } from './config/load-config.js';
import { type Config, type LogLevel, oauthScope } from './config/schema.js';
import { inAdviceForm } from './domain/advice-form.js';
import { type Clock, REAL_CLOCK } from './domain/clock.js';
import { serviceKey } from './domain/service-identity.js';
import type { EngineDeps } from './engine/engine-deps.js';
import { engineSettings } from './engine/engine-settings.js';
import { EntityLocks } from './engine/entity-locks.js';
import { FsLocalStore } from './local/fs-local-store.js';
import { createLogger, type Logger, type LoggerOptions } from './log/create-logger.js';
import { type ClientOptions, createRemote, type Remote } from './remote/create-client.js';
import { prefixFoundLine } from './remote/document-prefixes.js';
import { routeTable } from './remote/routes.js';
import type { ResponseInfo } from './remote/service-http.js';
import { openState } from './state/open-state.js';
import type { StateStore } from './state/state-store.js';

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
  /**
   * What the client's pace and retries keep time by: the service's rate and its recovery are in
   * real time (REAL_CLOCK), whatever clock the time rules run on; a test of the retries' rule
   * passes one whose waits end at once.
   */
  readonly clientClock?: Clock;
}

export interface App {
  readonly config: Config;
  readonly logger: Logger;
  readonly state: StateStore;
  readonly remote: Remote;
  /** The terminal's clock: what the engine, the folder and the daemon's timers keep time by. */
  readonly clock: Clock;
  close(): void;
}

export function openApp(terminal: Terminal, options: AppOptions = {}): App {
  const config = loadConfig({
    path: options.config,
    logLevel: options.logLevel,
    env: terminal.env,
    cwd: terminal.cwd,
  });
  const advice = adviceFormHere(terminal, options.config);
  const logger = createLogger({
    level: config.log.level,
    ...logOutput(terminal, options),
    // The commands a line names, for this configuration, as they run here.
    message: (text) => (text.includes('`docsync') ? inAdviceForm(text, advice) : text),
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
    time: options.clientClock ?? REAL_CLOCK,
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
    clock: terminal.clock,
    close: () => {
      if (closed) return;
      closed = true;
      remote.queue.clear();
      state.close();
      logger.flush();
    },
  };
}

/** Where the log goes: stdout (fd 1 for the process's own), stderr, or the caller's stream. */
function logOutput(terminal: Terminal, options: AppOptions): Omit<LoggerOptions, 'level'> {
  if (options.logDestination) return { destination: options.logDestination, pretty: false };
  if (options.logToStderr)
    return { destination: terminal.stderr, pretty: terminal.stderr.isTTY === true };
  if (isProcessStdout(terminal.stdout)) return {};
  return { destination: terminal.stdout, pretty: terminal.stdout.isTTY === true };
}

/**
 * The client's options from the configuration: the service's URL, credentials and routes, and
 * where its download links may point.
 */
export function clientOptions(config: Config): Omit<ClientOptions, 'tokenStore' | 'time'> {
  const { service, queue } = config;
  return {
    links: { hosts: service.linkHosts, ownPorts: ownPorts(config) },
    baseUrl: service.baseUrl,
    clientId: service.clientId,
    clientSecret: service.clientSecret,
    scope: oauthScope(service.scope),
    clientAuth: service.clientAuth,
    routes: routeTable(service.routes),
    shapes: service.shapes,
    requestsPerSecond: queue.requestsPerSecond,
    concurrency: queue.concurrency,
  };
}

/**
 * The ports docsync's listeners take on this machine, whether or not this command listens: a
 * `run --once` beside the daemon must not fetch the daemon's status page either.
 */
function ownPorts(config: Config): number[] {
  const callback = Number(new URL(config.service.redirectUri).port);
  return [config.status.listen.port, config.webhook.listen.port, callback].filter((p) => p > 0);
}

/** The folder adapter on `store.root`; it remembers the `.document.json` contents in the state. */
export function localStore(app: Pick<App, 'config' | 'state' | 'clock'>): FsLocalStore {
  return new FsLocalStore({
    root: app.config.store.root,
    ignore: [...app.config.ignore],
    settleSeconds: app.config.settleSeconds,
    now: () => new Date(app.clock.now()),
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
    now: () => app.clock.now(),
    clockOffsetMs: () => app.remote.clock.offsetMs,
    settings: engineSettings(app.config),
    locks: new EntityLocks((violation) =>
      app.logger.error({ violation }, 'an entity was worked on without its lock'),
    ),
  };
}
