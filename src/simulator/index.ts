/**
 * The simulator of the compliance service (api.md): an API listener, a second listener for
 * download links, OAuth, webhooks, faults, a rate limit and an admin API. It implements the
 * contract independently of the client in `src/remote/`, so the client can be tested against it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listenFailure } from '../domain/listen-failure.js';
import { SimulatorAdmin } from './admin.js';
import { AnswerHolds } from './answer-holds.js';
import { createApiServer } from './api-server.js';
import { SimClock } from './clock.js';
import { RequestCounters } from './counters.js';
import { DocumentOps } from './document-ops.js';
import { type FaultOptions, Faults } from './faults.js';
import { LinkHost } from './link-host.js';
import { OAuthServer } from './oauth.js';
import type { SimProfile } from './profile.js';
import { RateLimiter, type RateMode } from './rate-limit.js';
import { adminRoutes } from './routes-admin.js';
import { attachmentRoutes } from './routes-attachments.js';
import { documentRoutes } from './routes-documents.js';
import { entityRoutes } from './routes-entities.js';
import { oauthRoutes } from './routes-oauth.js';
import { otherRoutes } from './routes-other.js';
import type { SeedOption } from './seed.js';
import { seedBase } from './seed-base.js';
import { type ShapeOptions, SimShapes } from './shapes.js';
import { SimStore } from './store.js';
import { type WebhookOptions, WebhookSender, type WebhookTarget } from './webhooks.js';

export type {
  AdminCounters,
  AdminNewAttachment,
  AdminNewDocument,
  RateSettings,
  SimulatorAdmin,
} from './admin.js';
export type { HeldRoute } from './answer-holds.js';
export type { CompanyInput, TrustInput } from './entity-factory.js';
export type { FaultOptions } from './faults.js';
export { isSimProfile, SIM_PROFILES, type SimProfile } from './profile.js';
export { isRateMode, RATE_MODES, type RateMode } from './rate-limit.js';
export { storedUploadName } from './routes-attachments.js';
export type { GeneratedSeed, SeedOption, SeedSummary } from './seed.js';
export type { ShapeOptions } from './shapes.js';
export type { StateDump } from './state-dump.js';
export type { WebhookAttempt, WebhookOptions, WebhookTarget } from './webhooks.js';
export { signWebhook } from './webhooks.js';

export interface SimulatorOptions {
  /** API port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Port of the download-link listener; 0 (default) picks a free one. */
  readonly linkPort?: number;
  readonly host?: string;
  readonly seed?: SeedOption;
  /** The pre-registered OAuth client. */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Requests per second per access token (default 20); 0 or Infinity turns the limit off. */
  readonly rateLimitPerSecond?: number;
  /** How the rate is counted (rate-limit.ts); default both a sliding and a calendar second. */
  readonly rateModes?: readonly RateMode[];
  /** The token bucket's burst, in the `bucket` mode (default 2). */
  readonly rateBurst?: number;
  /** The most a request's arrival is delayed by, at random, before it is counted (default 0). */
  readonly arrivalJitterMs?: number;
  /** Lifetime of access tokens (default 3600 s). */
  readonly accessTokenTtlSeconds?: number;
  /** Lifetime of download links (default 300 s, api.md). */
  readonly linkTtlSeconds?: number;
  /** Skew of the server clock: its Date header, timestamps, link expiry, webhook dates. */
  readonly clockOffsetMs?: number;
  readonly faults?: FaultOptions;
  /** Where webhooks go; can also be set later with `admin.setWebhook`. */
  readonly webhook?: WebhookTarget;
  /** Retry schedule, timeout and firm id of webhook deliveries. */
  readonly webhookDelivery?: WebhookOptions;
  /** Where uploaded bytes go; default a fresh temp folder, removed on close. */
  readonly dataDir?: string;
  /** Which reading of the service to speak (profile.ts); default `api`, api.md's. */
  readonly profile?: SimProfile;
  /** Other shapes of answers where api.md's are ours (shapes.ts); default api.md's. */
  readonly shapes?: ShapeOptions;
}

export interface Simulator {
  /** Base URL of the API, no trailing slash, e.g. `http://127.0.0.1:4010`. */
  readonly apiUrl: string;
  /** Base URL of the download-link listener. */
  readonly linkUrl: string;
  /** Base of the (fake) web application, for deep links. */
  readonly webUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly admin: SimulatorAdmin;
  /** Stops both listeners and pending webhooks; a second call waits for the first. */
  close(): Promise<void>;
}

/** The client registered with every simulator unless told otherwise (`docsync init` uses it). */
export const SIMULATOR_CLIENT = {
  id: 'docsync-simulator-client',
  secret: 'docsync-simulator-secret',
} as const;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const clientId = options.clientId ?? SIMULATOR_CLIENT.id;
  const clientSecret = options.clientSecret ?? SIMULATOR_CLIENT.secret;
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'docsync-simulator-'));
  mkdirSync(dataDir, { recursive: true });
  const { deps, admin, api } = compose(options, clientId, clientSecret, dataDir);
  const { links, webhooks, holds } = deps;
  let apiUrl: string;
  try {
    apiUrl = await listen(api, options.port ?? 0, host, '--port');
    links.baseUrl = await listen(links.server, options.linkPort ?? 0, host, '--link-port');
  } catch (error) {
    // Nothing half started: an API listener left open would keep the process from ending.
    webhooks.close();
    await stop(api);
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      webhooks.close();
      holds.release();
      await Promise.all([stop(api), stop(links.server)]);
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    })();
    return closing;
  };
  const webUrl = `${apiUrl}/web`;
  return { apiUrl, linkUrl: links.baseUrl, webUrl, clientId, clientSecret, admin, close };
}

/** Wires the parts together: one store and clock, shared by the API, the links and the admin. */
function compose(
  options: SimulatorOptions,
  clientId: string,
  clientSecret: string,
  dataDir: string,
) {
  const profile = options.profile ?? 'api';
  const clock = new SimClock(options.clockOffsetMs ?? 0);
  const store = new SimStore();
  seedBase(store);
  const ops = new DocumentOps(store, clock);
  const oauth = new OAuthServer(options.accessTokenTtlSeconds ?? 3600);
  oauth.registerClient(clientId, clientSecret);
  const faults = new Faults(clock, options.faults, profile);
  const shapes = new SimShapes(options.shapes, profile);
  const holds = new AnswerHolds();
  const links = new LinkHost(store, clock, faults, options.linkTtlSeconds ?? 300);
  const counters = new RequestCounters();
  const rateLimiter = new RateLimiter(
    options.rateLimitPerSecond ?? 20,
    options.rateModes,
    options.rateBurst,
  );
  rateLimiter.arrivalJitterMs = options.arrivalJitterMs ?? 0;
  const webhooks = new WebhookSender(clock, options.webhookDelivery, profile, shapes);
  webhooks.target = options.webhook ?? null;
  store.onChange((event) => webhooks.send(event));
  const deps = {
    store,
    ops,
    clock,
    oauth,
    faults,
    holds,
    links,
    counters,
    webhooks,
    rateLimiter,
    dataDir,
    shapes,
  };
  const admin = new SimulatorAdmin({ ...deps, defaultClientId: clientId });
  if (options.seed !== undefined) admin.seed(options.seed);
  const routes = [
    ...adminRoutes(admin),
    ...oauthRoutes(oauth),
    ...entityRoutes(store, profile),
    ...documentRoutes(store, ops, profile),
    ...attachmentRoutes(store, ops, links, dataDir, faults, shapes),
    ...otherRoutes(store),
  ];
  const api = createApiServer({
    routes,
    clock,
    oauth,
    faults,
    holds,
    rateLimiter,
    counters,
    profile,
    shapes,
  });
  return { deps, admin, api };
}

/**
 * Listens on `host`:`port`; an address that cannot be taken (in use, privileged) rejects with
 * the one sentence that names it and `flag`, the command's option for it.
 */
function listen(server: Server, port: number, host: string, flag: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const shownHost = host.includes(':') ? `[${host}]` : host;
    server.once('error', (error) => reject(listenFailure(flag, `${shownHost}:${port}`, error)));
    server.listen(port, host, () => {
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve(`http://${shown}:${actual}`);
    });
  });
}

/** Closes a listener, ending idle keep-alive connections so close never hangs. */
function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
