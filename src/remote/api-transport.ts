/**
 * The wire for the API's small JSON requests: node:http(s) on one keep-alive agent, the whole
 * answer read as text. Nearly every request of a cycle is one of these (lists, details, status
 * assignments), so their cost per request is the client's cost.
 *
 * Measured on 1,000 list requests, 4 at a time, against the simulator on this machine (bench 2):
 * ~630 ms through got and ~300 ms through node:http in a fresh process, ~300 and ~80 ms in a
 * warm one, with about ten times the garbage through got (its options object and request
 * stream). got still carries what it is good at: multipart uploads, streamed downloads from the
 * link host, and the OAuth exchange, where the bytes or the rarity make that cost invisible.
 * Answers are not asked for compressed: the API's pages are small JSON.
 */
import http from 'node:http';
import https from 'node:https';

/** How docsync names itself to the service, on every wire (got's instances too). */
export const USER_AGENT = 'docsync';

export interface ApiRequest {
  readonly method: string;
  /** Absolute URL, query included. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON body, already serialised. */
  readonly json?: string;
}

/** What the service answered; `body` is the whole body as UTF-8 text. */
export interface ApiResponse {
  readonly statusCode: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export type ApiTransport = (request: ApiRequest) => Promise<ApiResponse>;

export interface ApiTransportOptions {
  /** The whole exchange, from sending to the last byte, like got's `timeout.request`. */
  readonly timeoutMs: number;
}

/**
 * Failures reject with Node's own errors and their `code` (ECONNREFUSED, ECONNRESET, ...), a
 * timeout with `ETIMEDOUT`: the caller maps them (and decides retries) as it did for got's.
 * Redirects are answers like any other (never followed: one could carry the token elsewhere).
 */
export function nodeHttpTransport(options: ApiTransportOptions): ApiTransport {
  // Keep-alive: the real service is HTTPS, and a handshake per request would cost more than
  // everything else here. Idle sockets are unref'd by the agent, so they never hold a
  // `--once` run open.
  const httpAgent = new http.Agent({ keepAlive: true });
  const httpsAgent = new https.Agent({ keepAlive: true });
  return (request) =>
    new Promise((resolve, reject) => {
      const url = new URL(request.url);
      const secure = url.protocol === 'https:';
      const headers: Record<string, string | number> = {
        'user-agent': USER_AGENT,
        ...request.headers,
      };
      if (request.json !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(request.json);
      }
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      const send = secure ? https.request : http.request;
      const req = send(
        url,
        { method: request.method, headers, agent: secure ? httpsAgent : httpAgent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', fail);
          res.on('end', () => {
            clearTimeout(timer);
            resolve({
              statusCode: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      // Destroyed with this error, the request reports it (not a reset), even mid-body.
      const timer = setTimeout(() => {
        const error = new Error(`no complete answer within ${options.timeoutMs} ms`);
        req.destroy(Object.assign(error, { code: 'ETIMEDOUT' }));
      }, options.timeoutMs);
      req.on('error', fail);
      req.end(request.json);
    });
}
