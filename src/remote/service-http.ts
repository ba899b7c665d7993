/**
 * One request to the service: queue slot → bearer token → wire → error mapping → retry. Every
 * call of the client comes through `request`, so rate, retries, 401 refresh and clock
 * observation are decided in one place.
 *
 * Non-idempotent requests (POST) are repeated only when the service surely did not apply them
 * (429, connection refused, 401); any other 4xx is a definite refusal, thrown as it is. Any
 * other failure after sending becomes OUTCOME_UNKNOWN and the caller finds out by reading,
 * because a blind retry of a create can duplicate a document.
 */
import type { Got } from 'got';
import { type Clock, waitOn } from '../domain/clock.js';
import { DocsyncError, RunStoppedError } from '../domain/errors.js';
import type { OwnerKind, OwnerRef } from '../domain/types.js';
import { ApiError, serviceErrorOf } from './api-error.js';
import { type ApiRequest, type ApiResponse, type ApiWire, gotWire } from './api-wire.js';
import { type DocumentPrefix, DocumentPrefixes, otherPrefix } from './document-prefixes.js';
import type { Departure, RequestQueue } from './request-queue.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay } from './retry-delay.js';
import {
  expandPath,
  isOwnerRoute,
  kindRoute,
  type Route,
  type RouteName,
  type RouteTable,
  routeIsSet,
  routeLabel,
} from './routes.js';
import type { ServerClock } from './server-clock.js';
import { ServiceShapes } from './service-shapes.js';
import type { TokenManager } from './token-manager.js';
import type { UploadForm } from './upload-form.js';

export interface ResponseInfo {
  readonly route: string;
  readonly status: number | 'network';
  readonly durationMs: number;
  /**
   * How long the request waited in the queue before it was sent (the rate window, the
   * concurrency limit or a 429 pause): when this dominates, the rate budget is what is slow.
   */
  readonly waitedMs: number;
}

export interface ServiceHttpOptions {
  /** The got instance every request to the API goes out on (api-wire.ts). */
  readonly http: Got;
  readonly baseUrl: string;
  /** The paths to call: the built-in table with the configuration's corrections. */
  readonly routes: RouteTable;
  readonly queue: RequestQueue;
  readonly tokens: TokenManager;
  readonly clock: ServerClock;
  readonly retry?: RetryPolicy;
  readonly random?: () => number;
  /** What a retry waits out its delay on. */
  readonly time: Clock;
  readonly timeoutMs?: number;
  readonly onResponse?: (info: ResponseInfo) => void;
  /** The document routes' prefix per owner kind, found on first contact (document-prefixes.ts). */
  readonly prefixes?: DocumentPrefixes;
  /** How answers are read where api.md's shapes are ours (`service.shapes`), and what was seen. */
  readonly shapes?: ServiceShapes;
}

export interface RequestSpec {
  readonly owner?: OwnerRef;
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly json?: unknown;
  /**
   * Built anew for each attempt, since a sent body (a stream) cannot be sent again, and the
   * file it reads is opened and checked again.
   */
  readonly body?: () => Promise<UploadForm>;
  /**
   * A 3xx with a `Location` is this route's answer (a download link given as a redirect),
   * returned as a Redirect and never followed here; on any other route it is an error.
   */
  readonly redirectAnswers?: boolean;
}

/** A 3xx answer with its `Location`, and the URL that gave it (to resolve a relative one). */
export class Redirect {
  constructor(
    readonly location: string,
    readonly answeredUrl: string,
  ) {}
}

const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export class ServiceHttp {
  readonly #o: ServiceHttpOptions;
  readonly #wire: ApiWire;
  readonly #prefixes: DocumentPrefixes;
  readonly shapes: ServiceShapes;
  /** A first contact under way per owner kind: the other lists of that kind wait for it. */
  readonly #finding = new Map<OwnerKind, Promise<unknown>>();

  constructor(options: ServiceHttpOptions) {
    this.#o = options;
    this.#wire = gotWire(options.http, { timeoutMs: options.timeoutMs ?? 60_000 });
    this.#prefixes = options.prefixes ?? new DocumentPrefixes();
    this.shapes = options.shapes ?? new ServiceShapes();
  }

  /**
   * The route as this client calls it: the built-in one or the configuration's; for a route of
   * an owner's documents and a `kind`, as called for that kind (routes.ts, kindRoute).
   */
  route(name: RouteName, kind?: OwnerKind): Route {
    return this.#route(name, kind, kind ? this.#prefixes.known(kind) : null);
  }

  /** `GET /cas/companies`: the route as called, for logs, metrics and error messages. */
  label(name: RouteName, kind?: OwnerKind): string {
    return routeLabel(this.route(name, kind));
  }

  /** The prefix found for `kind`'s document routes on first contact; null before it. */
  documentPrefix(kind: OwnerKind): DocumentPrefix | null {
    return this.#prefixes.known(kind);
  }

  #route(name: RouteName, kind: OwnerKind | undefined, prefix: DocumentPrefix | null): Route {
    const route = this.#o.routes[name];
    if (kind === undefined || !isOwnerRoute(name)) return route;
    return kindRoute(name, route, kind, prefix);
  }

  /** The parsed JSON body of a successful answer (null for 204; a Redirect where asked for). */
  async request(name: RouteName, spec: RequestSpec = {}): Promise<unknown> {
    const kind = spec.owner?.kind;
    if (name === 'listDocuments' && kind && !routeIsSet(this.#o.routes[name], kind)) {
      const finding = this.#finding.get(kind);
      if (finding) await finding.catch(() => undefined);
      if (this.#prefixes.known(kind) === null) return this.#firstContact(name, kind, spec);
    }
    return this.#request(this.#route(name, kind, kind ? this.#prefixes.known(kind) : null), spec);
  }

  /**
   * The first document list of an owner kind: the built-in path, and on a 404 the same with
   * `/cas` added or removed. The one that answers is recorded (document-prefixes.ts); when both
   * answer 404, the error says so and nothing is recorded.
   */
  #firstContact(name: 'listDocuments', kind: OwnerKind, spec: RequestSpec): Promise<unknown> {
    const builtIn: DocumentPrefix = this.#o.routes[name].path.startsWith('/cas/') ? '/cas' : '';
    const attempt = async () => {
      const first = this.#route(name, kind, builtIn);
      try {
        const body = await this.#request(first, spec);
        this.#prefixes.record({
          kind,
          prefix: builtIn,
          answered: routeLabel(first),
          refused: null,
        });
        return body;
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 404) throw error;
        const other = this.#route(name, kind, otherPrefix(builtIn));
        const body = await this.#request(other, spec).catch((second: unknown) => {
          throw second instanceof ApiError && second.status === 404
            ? bothRefused(error, routeLabel(other))
            : second;
        });
        this.#prefixes.record({
          kind,
          prefix: otherPrefix(builtIn),
          answered: routeLabel(other),
          refused: routeLabel(first),
        });
        return body;
      }
    };
    const finding = attempt();
    this.#finding.set(kind, finding);
    void finding.finally(() => this.#finding.delete(kind)).catch(() => undefined);
    return finding;
  }

  async #request(route: Route, spec: RequestSpec): Promise<unknown> {
    const label = routeLabel(route);
    const url =
      this.#o.baseUrl + expandPath(route.path, spec.params ?? {}, spec.owner) + queryOf(spec.query);
    const idempotent = route.method !== 'POST';
    const random = this.#o.random ?? Math.random;
    let refreshed = false;
    let sent = false;

    for (let attempt = 1; ; attempt++) {
      try {
        const queuedAt = Date.now();
        // The token is taken when the request leaves the queue, not when it joins it: at the
        // service's rate a request can wait longer than a short-lived token lives, and would
        // fail with 401 token_expired.
        const { response, token } = await this.#o.queue.run(async (cut, sending) => {
          const current = await this.#o.tokens.accessToken();
          const goes = async () => {
            const departure = await sending();
            sent = true;
            return departure;
          };
          return {
            token: current,
            response: await this.#send(url, label, route.method, current, spec, queuedAt, {
              cut,
              sending: goes,
            }),
          };
        });
        if (response.statusCode === 401 && !refreshed) {
          // Expired or revoked early: refresh once; a second 401 is a real refusal.
          refreshed = true;
          await this.#o.tokens.refresh(token);
          attempt--;
          continue;
        }
        return parseBody(response, label, spec.redirectAnswers ? url : null);
      } catch (caught) {
        // Stopping: no retry, and what was sent may have been applied (a push stays in doubt).
        if (this.#o.queue.stopping.aborted) throw stopped(label, sent && route.method !== 'GET');
        // Our own errors (no grant: AuthRequiredError) are decisions, not failures to retry.
        if (caught instanceof DocsyncError && !(caught instanceof ApiError)) throw caught;
        // A 429 waits out its Retry-After below, alone: the governor lowers the rate for the rest.
        const error = toApiError(caught, label);
        if (!idempotent && !surelyNotApplied(error)) throw outcomeUnknown(error, label);
        const delay = retryDelay(error, attempt, random(), this.#o.retry ?? DEFAULT_RETRY_POLICY);
        if (delay === 0) throw error;
        await waitOn(this.#o.time, delay, this.#o.queue.stopping, () =>
          stopped(label, sent && route.method !== 'GET'),
        );
      }
    }
  }

  async #send(
    url: string,
    label: string,
    method: ApiRequest['method'],
    token: string,
    spec: RequestSpec,
    queuedAt: number,
    { cut, sending }: { readonly cut: AbortSignal; readonly sending: () => Promise<Departure> },
  ) {
    const form = spec.body ? await buildBody(spec.body, label) : undefined;
    // Counted by the governor when its bytes go out, after its token and its file.
    const departure = await sending();
    const started = Date.now();
    const authorization = `Bearer ${token}`;
    try {
      const response: ApiResponse = await this.#wire({
        method,
        url,
        headers: { authorization },
        // A read is cut the moment docsync stops: nothing waits on its answer, and its work is
        // read again next time. A write keeps the grace, so one answered is not left in doubt.
        signal: method === 'GET' ? this.#o.queue.stopping : cut,
        onSent: departure.wentOut,
        ...(spec.json !== undefined ? { json: JSON.stringify(spec.json) } : {}),
        ...(form ? { form } : {}),
      });
      if (response.statusCode === 429) departure.throttled();
      this.#o.clock.observe(response.headers.date, started, Date.now());
      this.#o.onResponse?.({
        route: label,
        status: response.statusCode,
        durationMs: Date.now() - started,
        waitedMs: started - queuedAt,
      });
      return response;
    } catch (error) {
      this.#o.onResponse?.({
        route: label,
        status: 'network',
        durationMs: Date.now() - started,
        waitedMs: started - queuedAt,
      });
      throw error;
    }
  }
}

/**
 * The body of an upload, built before anything is sent: a file that cannot be read (gone since
 * it was chosen) means the request never left, so its outcome is not in doubt and it is not a
 * network failure to retry.
 */
async function buildBody(body: NonNullable<RequestSpec['body']>, label: string) {
  try {
    return await body();
  } catch (error) {
    // The file is not what the upload was planned for (LocalChangedError): said as it is.
    if (error instanceof DocsyncError) throw error;
    throw new DocsyncError(
      'UPLOAD_UNREADABLE',
      `${label}: could not read what to send (${(error as Error).message}); nothing was sent`,
      { cause: error },
    );
  }
}

/** A 404 on both prefixes: the error names both paths, so neither is taken for the only one. */
function bothRefused(first: ApiError, other: string): ApiError {
  return new ApiError('HTTP_ERROR', `${first.message}; ${other} answered 404 too`, {
    route: first.route,
    status: 404,
    serviceCode: first.serviceCode,
    responseBody: first.responseBody,
  });
}

/** `redirectsFrom`: the URL asked, when a redirect is an answer (RequestSpec.redirectAnswers). */
function parseBody(response: ApiResponse, label: string, redirectsFrom: string | null): unknown {
  const body = response.body ? tryJson(response.body) : null;
  const location = response.headers.location;
  const redirect = response.statusCode >= 300 && response.statusCode < 400;
  if (redirect && redirectsFrom !== null && location) return new Redirect(location, redirectsFrom);
  if (response.statusCode >= 300 || response.statusCode < 200)
    throw httpError(response, body, label);
  if (response.statusCode === 204 || !response.body) return null;
  if (body === undefined) {
    throw new ApiError('MALFORMED_RESPONSE', `${label}: the answer is not JSON`, {
      route: label,
      status: response.statusCode,
      responseBody: response.body.slice(0, 500),
    });
  }
  return body;
}

function httpError(response: ApiResponse, body: unknown, label: string): ApiError {
  const { code: serviceCode, text: message } = serviceErrorOf(body);
  const location = response.headers.location;
  // A redirect is followed for no route of the API: it could carry the bearer token elsewhere.
  const to =
    response.statusCode >= 300 && response.statusCode < 400 && location
      ? ` (a redirect to ${location}, which docsync does not follow)`
      : '';
  const text = `${to}${message ? `: ${message}` : ''}`;
  return new ApiError(
    'HTTP_ERROR',
    `${label} answered ${response.statusCode}${serviceCode ? ` ${serviceCode}` : ''}${text}`,
    {
      route: label,
      status: response.statusCode,
      serviceCode,
      retryAfterSeconds: parseRetryAfter(response.headers['retry-after']),
      responseBody: body,
    },
  );
}

export function toApiError(error: unknown, label: string): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new ApiError('NETWORK', `${label}: ${(error as Error).message}`, {
    route: label,
    networkCode: code,
    cause: error,
  });
}

/**
 * The service answered 4xx (a 413 file too large, a 422 validation): it looked at the request
 * and refused it, so it applied nothing. Only a 5xx, a cut connection or a timeout leaves the
 * outcome unknown.
 */
function surelyNotApplied(error: ApiError): boolean {
  if (error.code === 'HTTP_ERROR') return error.status !== undefined && error.status < 500;
  return error.code === 'NETWORK' && NEVER_SENT.has(error.networkCode ?? '');
}

/** `GET /cas/trusts` was not sent, or was cut, because docsync is stopping. */
function stopped(label: string, mayHaveApplied: boolean): RunStoppedError {
  return new RunStoppedError(
    mayHaveApplied
      ? `${label}: cut while in flight, docsync is stopping; it may have been applied`
      : `${label}: not sent, docsync is stopping`,
    mayHaveApplied,
  );
}

function outcomeUnknown(error: ApiError, label: string): ApiError {
  return new ApiError(
    'OUTCOME_UNKNOWN',
    `${label}: may or may not have been applied (${error.message})`,
    {
      route: label,
      status: error.status,
      serviceCode: error.serviceCode,
      cause: error,
    },
  );
}

/** `Retry-After` in seconds or as an HTTP date. */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `?a=1&b=2` of the defined entries, encoded as got's `searchParams` would; '' for none. */
function queryOf(query: RequestSpec['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
