/**
 * Wires the client's parts: one rate-limited queue, one token manager, one clock, and two got
 * instances: one for the API (every request, api-wire.ts, and the OAuth exchange), one for
 * download links that never carries a token.
 */
import { got } from 'got';
import { USER_AGENT } from './api-wire.js';
import type { RequestQueueOptions } from './request-queue.js';
import { RequestQueue } from './request-queue.js';
import type { RetryPolicy } from './retry-delay.js';
import { ROUTES, type RouteTable } from './routes.js';
import { ServerClock } from './server-clock.js';
import { ServiceClient } from './service-client.js';
import { type ResponseInfo, ServiceHttp } from './service-http.js';
import { type ClientAuth, TokenManager, type TokenStore } from './token-manager.js';
import { Transfers } from './transfers.js';

export interface ClientOptions extends RequestQueueOptions {
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
  readonly timeoutMs?: number;
  readonly onResponse?: (info: ResponseInfo) => void;
}

export interface Remote {
  readonly client: ServiceClient;
  /** Every request to the API goes through it (`docsync check` probes routes with it). */
  readonly http: ServiceHttp;
  readonly tokens: TokenManager;
  readonly queue: RequestQueue;
  readonly clock: ServerClock;
}

export function createRemote(options: ClientOptions): Remote {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const apiGot = got.extend({ headers: { 'user-agent': USER_AGENT } });
  const linkGot = got.extend({ headers: { 'user-agent': USER_AGENT } });
  const routes = options.routes ?? ROUTES;
  const queue = new RequestQueue(options);
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
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.onResponse ? { onResponse: options.onResponse } : {}),
  });
  const transfers = new Transfers({
    http,
    linkHttp: linkGot,
    concurrency: options.concurrency,
    stop: queue,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
  return { client: new ServiceClient(http, transfers), http, tokens, queue, clock };
}
