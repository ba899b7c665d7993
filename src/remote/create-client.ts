/**
 * Wires the client's parts: one rate-limited queue (on the real clock), one token manager, one
 * server clock, and two got instances: one for the API (every request, api-wire.ts, and the OAuth
 * exchange), one for download links that never carries a token.
 */
import { type Got, got } from 'got';
import type { Clock } from '../domain/clock.js';
import { USER_AGENT } from './api-wire.js';
import { DocumentPrefixes, type PrefixFound, type PrefixStore } from './document-prefixes.js';
import { LinkGuard } from './link-guard.js';
import { linkOrigins } from './link-rules.js';
import { RequestQueue, type RequestQueueOptions } from './request-queue.js';
import type { RetryPolicy } from './retry-delay.js';
import { ROUTES, type RouteTable } from './routes.js';
import { ServerClock } from './server-clock.js';
import { ServiceClient } from './service-client.js';
import { type ResponseInfo, ServiceHttp } from './service-http.js';
import { ServiceShapes, type ShapeSettings } from './service-shapes.js';
import { type ClientAuth, TokenManager, type TokenStore } from './token-manager.js';
import type { Transcript } from './transcript.js';
import { Transfers } from './transfers.js';

export interface ClientOptions extends Omit<RequestQueueOptions, 'clock'> {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string;
  /** Default `client_secret_basic`. */
  readonly clientAuth?: ClientAuth;
  /** The paths to call (`routeTable(service.routes)`); default the built-in table. */
  readonly routes?: RouteTable;
  readonly tokenStore: TokenStore;
  readonly retry?: RetryPolicy;
  readonly random?: () => number;
  /** What the queue's pace and the retries' waits keep time by (the command's clock). */
  readonly time: Clock;
  readonly timeoutMs?: number;
  readonly onResponse?: (info: ResponseInfo) => void;
  /** Where the document routes' prefix found on first contact is kept (the state). */
  readonly prefixStore?: PrefixStore;
  /** Told once when a prefix is found (the log). */
  readonly onPrefixFound?: (found: PrefixFound) => void;
  /** `service.shapes`: where lists' items are, the upload's part name; default api.md's. */
  readonly shapes?: ShapeSettings;
  /** Records every request and answer, secrets removed (`docsync check --save`). */
  readonly transcript?: Transcript | undefined;
  /**
   * Where download links may point: `service.linkHosts` (absent: any https host with a public
   * address) and the ports docsync's own listeners take, which no link may reach.
   */
  readonly links: {
    readonly hosts?: readonly string[] | undefined;
    readonly ownPorts?: Iterable<number>;
  };
}

export interface Remote {
  readonly client: ServiceClient;
  /** Every request to the API goes through it (`docsync check` probes routes with it). */
  readonly http: ServiceHttp;
  readonly tokens: TokenManager;
  readonly queue: RequestQueue;
  readonly clock: ServerClock;
  /** The got instance the API's requests go out on, for requests made outside the client. */
  readonly got: Got;
  /** Where download links may point; a listener adds its port once it listens. */
  readonly links: LinkGuard;
}

export function createRemote(options: ClientOptions): Remote {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const transcript = options.transcript;
  transcript?.secret(options.clientSecret);
  const apiGot = got.extend({
    headers: { 'user-agent': USER_AGENT },
    ...(transcript ? { hooks: transcript.hooks() } : {}),
  });
  const linkGot = got.extend({
    headers: { 'user-agent': USER_AGENT },
    ...(transcript ? { hooks: transcript.hooks({ links: true }) } : {}),
  });
  const links = new LinkGuard({
    origins: linkOrigins(options.links.hosts),
    ...(options.links.ownPorts ? { ownPorts: options.links.ownPorts } : {}),
  });
  const routes = options.routes ?? ROUTES;
  const queue = new RequestQueue({
    requestsPerSecond: options.requestsPerSecond,
    concurrency: options.concurrency,
    clock: options.time,
  });
  const clock = new ServerClock();
  const tokens = new TokenManager({
    http: apiGot,
    baseUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scope: options.scope,
    tokenPath: routes.token.path,
    store: options.tokenStore,
    ...(options.clientAuth ? { clientAuth: options.clientAuth } : {}),
  });
  const http = new ServiceHttp({
    http: apiGot,
    baseUrl,
    routes,
    queue,
    tokens,
    clock,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.random ? { random: options.random } : {}),
    time: options.time,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.onResponse ? { onResponse: options.onResponse } : {}),
    prefixes: new DocumentPrefixes(options.prefixStore ?? null, options.onPrefixFound),
    shapes: new ServiceShapes(options.shapes),
  });
  const transfers = new Transfers({
    http,
    linkHttp: linkGot,
    linkGuard: links,
    concurrency: options.concurrency,
    stop: queue,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.random ? { random: options.random } : {}),
    time: options.time,
  });
  return {
    client: new ServiceClient(http, transfers),
    http,
    tokens,
    queue,
    clock,
    got: apiGot,
    links,
  };
}
