/**
 * The wire for every request to the API, on got: the small JSON requests (lists, details,
 * status assignments) and the multipart uploads alike, so there is one timeout, one error
 * mapping and one retry path (service-http.ts decides the retries; got's own are off). The
 * whole answer is read as text; redirects are answers like any other, never followed (one could
 * carry the bearer token to another host); connections are kept alive, since the real service
 * is HTTPS and a handshake per request would cost more than the request.
 *
 * got costs some CPU per request over bare node:http. At the service's ~10 requests a second
 * that is a sliver of one core: the rate, not the client, sets the pace of every real run
 * (docs/benchmarks.md).
 */
import type { IncomingHttpHeaders } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Got } from 'got';
import type { UploadForm } from './upload-form.js';

/** How docsync names itself to the service, on every request (the link host's too). */
export const USER_AGENT = 'docsync';

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Absolute URL, query included. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON body, already serialised. */
  readonly json?: string;
  /** A multipart body (an upload); got encodes it and streams its file with its length. */
  readonly form?: UploadForm;
  /** Cuts the request (docsync is stopping). */
  readonly signal?: AbortSignal;
  /**
   * Called as the request's bytes go out: at once on a connection kept alive, after the
   * connection (and its TLS handshake) on a new one. The governor counts it from then.
   */
  readonly onSent?: () => void;
}

/** What the service answered; `body` is the whole body as UTF-8 text. */
export interface ApiResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export type ApiWire = (request: ApiRequest) => Promise<ApiResponse>;

export interface ApiWireOptions {
  /** The whole exchange, from sending to the last byte. */
  readonly timeoutMs: number;
}

/**
 * Failures reject with got's errors, which carry Node's `code` (ECONNREFUSED, ECONNRESET, ...),
 * and ETIMEDOUT for a timeout: the caller maps them and decides retries.
 */
export function gotWire(got: Got, options: ApiWireOptions): ApiWire {
  const client = got.extend({
    headers: { 'user-agent': USER_AGENT, accept: 'application/json' },
    responseType: 'text',
    throwHttpErrors: false,
    retry: { limit: 0 },
    followRedirect: false,
    timeout: { request: options.timeoutMs },
    // Idle sockets of these agents are unref'd, so they never hold a `--once` run open.
    agent: {
      http: new http.Agent({ keepAlive: true }),
      https: new https.Agent({ keepAlive: true }),
    },
  });
  return async (request) => {
    const json = request.json !== undefined;
    const pending = client(request.url, {
      method: request.method,
      headers: json ? { ...request.headers, 'content-type': 'application/json' } : request.headers,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(json ? { body: request.json } : request.form ? { body: request.form } : {}),
    });
    const { onSent } = request;
    if (onSent) pending.on('request', (req) => req.once('socket', (s) => whenConnected(s, onSent)));
    const response = await pending;
    return { statusCode: response.statusCode, headers: response.headers, body: response.body };
  };
}

/**
 * Calls `done` once `socket` can carry bytes: a socket handed over while still connecting
 * (a new connection) writes the request only after its connect, and for TLS its handshake,
 * which can take longer than the spacing between two requests; one kept alive writes at once.
 */
function whenConnected(socket: Socket, done: () => void): void {
  if (!socket.connecting) {
    done();
    return;
  }
  socket.once(socket instanceof TLSSocket ? 'secureConnect' : 'connect', done);
}
