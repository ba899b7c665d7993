/**
 * The API listener: strips the optional `/cas` prefix, matches the route, injects faults,
 * authenticates the bearer token, applies the per-token rate limit, runs the handler, may lose
 * a write's answer after it was carried out, and counts the answer. Admin routes skip faults, auth and the rate limit: they are a test tool.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AnswerHolds } from './answer-holds.js';
import type { SimClock } from './clock.js';
import type { RequestCounters } from './counters.js';
import type { Faults } from './faults.js';
import {
  errorReply,
  matchRoute,
  type Reply,
  type Route,
  sendReply,
  stripCasPrefix,
} from './http-kit.js';
import type { OAuthServer } from './oauth.js';
import { FIRM_USER } from './oauth.js';
import { type SimProfile, servesPath } from './profile.js';
import type { RateLimiter } from './rate-limit.js';
import type { SimShapes } from './shapes.js';
import { SimError } from './sim-error.js';

export interface ApiServerDeps {
  readonly routes: readonly Route[];
  readonly clock: SimClock;
  readonly oauth: OAuthServer;
  readonly faults: Faults;
  /** Answers a test holds back after the request was carried out (answer-holds.ts). */
  readonly holds: AnswerHolds;
  readonly rateLimiter: RateLimiter;
  readonly counters: RequestCounters;
  readonly profile: SimProfile;
  /** Other shapes the answers go out in (shapes.ts). */
  readonly shapes: SimShapes;
}

export function createApiServer(deps: ApiServerDeps): Server {
  return createServer((req, res) => {
    handleRequest(deps, req, res).catch((error: unknown) => {
      // A bug in a handler: answer 500 rather than leave the client hanging.
      if (!res.headersSent)
        sendReply(res, errorReply(internal(error), undefined, deps.profile), deps.clock.nowMs());
      else res.destroy();
    });
  });
}

async function handleRequest(
  deps: ApiServerDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator');
  const path = stripCasPrefix(url.pathname);
  // The admin API and the stand-in web page are tools, not the contract: never faulted or counted.
  const admin = path.startsWith('/_admin/') || path.startsWith('/web/');
  // The network's jitter (rate-limit.ts), then counted by the rate as it arrives, as a
  // service's edge would, not after the work below.
  const jitter = admin ? 0 : deps.rateLimiter.arrivalDelayMs();
  if (jitter > 0) await new Promise((resolve) => setTimeout(resolve, jitter));
  const arrivedAt = Date.now();
  const method = req.method ?? 'GET';
  const found = matchRoute(deps.routes, method, path);
  // The public pages' reading has one prefix per route (profile.ts): the other is a 404.
  const withCas = path !== url.pathname;
  const match =
    found && found !== 'method' && !servesPath(deps.profile, found.route.template, withCas)
      ? null
      : found;
  const template = match && match !== 'method' ? match.route.template : '(unknown)';
  const params = match && match !== 'method' ? match.params : {};
  let token: string | null = null;
  res.on('finish', () => {
    if (!admin) deps.counters.count(method, template, res.statusCode, token, params);
  });
  res.on('close', () => {
    if (!res.writableFinished && !admin) deps.counters.count(method, template, 0, token);
  });
  const matched = match && match !== 'method' ? match.route.template : null;
  if (!admin && (await deps.faults.before(req, res, false, matched)) === 'handled') return;
  let reply: Reply;
  try {
    if (match === null) throw new SimError(404, 'not_found', `No route for ${url.pathname}`);
    if (match === 'method')
      throw new SimError(405, 'method_not_allowed', `${method} is not allowed on ${path}`);
    let actor = FIRM_USER;
    if (match.route.auth) {
      ({ actor, token } = deps.oauth.authenticate(req.headers.authorization));
      const wait = deps.rateLimiter.check(token, arrivedAt);
      if (wait > 0) throw rateLimited(wait);
    }
    reply = await match.route.handle({
      req,
      res,
      params: match.params,
      query: url.searchParams,
      actor,
    });
    if (!admin) reply = deps.shapes.apply(match.route.template, reply);
  } catch (error) {
    if (!(error instanceof SimError)) throw error;
    reply = errorReply(
      error,
      error instanceof RateLimitError ? { 'Retry-After': String(error.retryAfter) } : undefined,
      deps.profile,
    );
  }
  if (!admin && matched !== null) await deps.holds.before(method, matched);
  // The write is done; its answer may still be lost on the way back (not a token's: OAuth is
  // not the contract's writes).
  const contract = !admin && matched !== null && match !== null && match !== 'method';
  if (contract && match.route.auth && reply) {
    if (deps.faults.after(req, res, reply.status, matched) === 'handled') return;
  }
  if (reply) sendReply(res, reply, deps.clock.nowMs());
}

class RateLimitError extends SimError {
  constructor(readonly retryAfter: number) {
    super(
      429,
      'rate_limited',
      `More than the allowed requests per second; retry after ${retryAfter} s`,
    );
  }
}

function rateLimited(seconds: number): RateLimitError {
  return new RateLimitError(seconds);
}

function internal(error: unknown): SimError {
  return new SimError(
    500,
    'internal_error',
    `Simulator bug: ${(error as Error)?.message ?? String(error)}`,
  );
}
