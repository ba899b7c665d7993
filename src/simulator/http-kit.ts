/**
 * The small HTTP toolkit of the simulator's servers: a route table matched by path template,
 * JSON replies with the shifted `Date` header, and bounded JSON bodies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBodyIn, type SimProfile } from './profile.js';
import { badRequest, SimError } from './sim-error.js';
import type { Actor } from './store.js';

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The user behind the bearer token; set for authenticated routes. */
  readonly actor: Actor;
}

/** What a handler answers; `null` when it wrote the response itself (streams, redirects). */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | null;

export interface Route {
  readonly method: string;
  /** `/companies/{companyId}/documents`: also the key of the request counters. */
  readonly template: string;
  /** false for OAuth and admin routes, which take no bearer token. */
  readonly auth: boolean;
  readonly handle: (ctx: RequestContext) => Reply | Promise<Reply>;
}

export interface RouteMatch {
  readonly route: Route;
  readonly params: Record<string, string>;
}

/**
 * Finds the route of a path. The first matching template wins, so literal paths such as
 * `/companies/documents/unlodged` are listed before `/companies/{companyId}/...`.
 * Returns 'method' when the path exists with another method only.
 */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): RouteMatch | 'method' | null {
  const segments = path.split('/').filter(Boolean).map(decodeSegment);
  let pathKnown = false;
  for (const route of routes) {
    const params = matchTemplate(route.template, segments);
    if (!params) continue;
    if (route.method === method) return { route, params };
    pathKnown = true;
  }
  return pathKnown ? 'method' : null;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matchTemplate(
  template: string,
  segments: readonly string[],
): Record<string, string> | null {
  const parts = template.split('/').filter(Boolean);
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i]!;
    if (part.startsWith('{')) params[part.slice(1, -1)] = segment;
    else if (part !== segment) return null;
  }
  return params;
}

/**
 * The public docs disagree on a `/cas` prefix; every path is matched without it (and served with
 * and without it, unless the profile says otherwise: profile.ts).
 */
export function stripCasPrefix(path: string): string {
  return path === '/cas' ? '/' : path.startsWith('/cas/') ? path.slice(4) : path;
}

export function sendReply(res: ServerResponse, reply: NonNullable<Reply>, dateMs: number): void {
  const headers: Record<string, string> = {
    Date: new Date(dateMs).toUTCString(),
    ...reply.headers,
  };
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers['Content-Type'] ??= 'application/json; charset=utf-8';
  headers['Content-Length'] = String(Buffer.byteLength(text));
  res.writeHead(reply.status, headers).end(text);
}

export function errorReply(
  error: SimError,
  headers?: Record<string, string>,
  profile: SimProfile = 'api',
): NonNullable<Reply> {
  const body = errorBodyIn(profile, error.code, error.message);
  return { status: error.status, body, ...(headers ? { headers } : {}) };
}

const MAX_JSON_BYTES = 1024 * 1024;

/** The body as text, refused past 1 MiB. */
export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BYTES) throw new SimError(413, 'too_large', 'Body over 1 MiB');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readText(req);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('The body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('The body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}
