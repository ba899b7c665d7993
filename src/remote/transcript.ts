/**
 * `docsync check --save FILE`: every request and answer of the check (method, URL, status,
 * headers, body cut at a few KB), for whoever supports the firm, with every secret removed.
 * Two nets, so no secret reaches the file by a path nobody thought of:
 *
 * 1. by shape: `Authorization` and cookie headers, and every value under a key that names a
 *    secret (`access_token`, `refresh_token`, `client_secret`, `code`, `signature`, …) in a
 *    query string (a redirect's too), a form or a JSON body; a download link but its host (it
 *    is a capability), in whatever shape it came (`url`, `link`, `href`, the answer itself, a
 *    redirect of the download route), and the query of any other link in an answer;
 * 2. by value: every secret docsync knows (the client secret, the webhook secret, each token it
 *    holds or is given, their Basic form) is replaced wherever it occurs in the text.
 *
 * Requests are caught with got's hooks on the client's instances (create-client.ts), so the
 * check's own code cannot forget one.
 */
import type { AfterResponseHook, BeforeErrorHook, BeforeRequestHook, Hooks } from 'got';

/** How much of a body is kept. */
export const BODY_LIMIT = 4096;

export const REMOVED = '[removed]';

/** Keys whose value is a secret in a JSON body or a form. */
const SECRET_KEY =
  /^(access_token|refresh_token|id_token|client_secret|token|secret|password|signature|apikey|api_key)$/i;

/** In a query string also the OAuth code and a signed link's parts. */
const SECRET_PARAM =
  /^(access_token|refresh_token|id_token|client_secret|code|token|secret|password|signature|sig|key|apikey|api_key|x-amz-signature|x-amz-credential|x-amz-security-token)$/i;

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$/i;

interface Exchange {
  readonly at: number;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | null;
  status?: number;
  error?: string;
  durationMs?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string | null;
}

export class Transcript {
  readonly #exchanges: Exchange[] = [];
  readonly #secrets = new Set<string>();
  readonly #open = new WeakMap<object, Exchange>();

  /** A value never to be written (a token, a secret); also its Basic-authentication forms. */
  secret(value: string | null | undefined): void {
    if (!value || value.length < 4) return;
    this.#secrets.add(value);
  }

  /**
   * got hooks that record every request made through the instance they extend. `links`: the
   * instance fetches download links, whose path is the capability: only their host is written.
   */
  hooks(options: { links?: boolean } = {}): Partial<Hooks> {
    const beforeRequest: BeforeRequestHook = (request) => {
      const url = String(request.url);
      const exchange: Exchange = {
        at: Date.now(),
        method: String(request.method),
        url: options.links ? `${originOf(url)}/${REMOVED}` : url,
        headers: flatHeaders(request.headers),
        body: bodyOf(request.body, request.form, request.json),
      };
      this.#exchanges.push(exchange);
      this.#open.set(request, exchange);
    };
    const afterResponse: AfterResponseHook = (response) => {
      const exchange = this.#open.get(response.request.options);
      if (exchange) {
        exchange.status = response.statusCode;
        exchange.durationMs = Date.now() - exchange.at;
        exchange.responseHeaders = flatHeaders(response.headers);
        exchange.responseBody = typeof response.body === 'string' ? response.body : null;
        this.#learnTokens(exchange.responseBody);
        // A download link given as a redirect (remote/shapes.ts, rule 5): its target is one.
        const location = response.headers.location;
        const download = /\/download$/.test(new URL(exchange.url).pathname);
        if (download && typeof location === 'string') this.#learnLink(location);
      }
      return response;
    };
    const beforeError: BeforeErrorHook = (error) => {
      const exchange = this.#open.get(error.options);
      if (exchange && exchange.status === undefined) exchange.error = error.message;
      return error;
    };
    return {
      beforeRequest: [beforeRequest],
      afterResponse: [afterResponse],
      beforeError: [beforeError],
    };
  }

  /** The transcript as text, secrets removed; `lines` is what the check concluded. */
  render(header: readonly string[], conclusion: string): string {
    const out = [
      ...header,
      `Secrets (tokens, client and webhook secrets, signatures) are written as ${REMOVED}.`,
      '',
    ];
    for (const e of this.#exchanges) {
      out.push(`> ${e.method} ${redactUrl(e.url)}   (${new Date(e.at).toISOString()})`);
      for (const [k, v] of Object.entries(e.headers)) out.push(`> ${k}: ${redactHeader(k, v)}`);
      if (e.body !== null) out.push('>', cut(redactBody(e.body)));
      if (e.status !== undefined) {
        out.push(`< ${e.status} in ${e.durationMs} ms`);
        for (const [k, v] of Object.entries(e.responseHeaders ?? {}))
          out.push(`< ${k}: ${redactHeader(k, v)}`);
        if (e.responseBody === null)
          out.push('<', '(the answer was streamed into a file; not kept)');
        else if (e.responseBody) out.push('<', cut(redactBody(e.responseBody)));
      } else {
        out.push(`< no answer${e.error ? `: ${e.error}` : ''}`);
      }
      out.push('');
    }
    out.push('What the check concluded:', conclusion);
    return this.#scrub(`${out.join('\n')}\n`);
  }

  /**
   * The transcript as one JSON object, for a file named `….json`: the same exchanges, redacted
   * the same way, and `conclusion`, what the check concluded (its `--json` output).
   */
  renderJson(header: readonly string[], conclusion: unknown): string {
    const exchanges = this.#exchanges.map((e) => ({
      at: new Date(e.at).toISOString(),
      request: {
        method: e.method,
        url: redactUrl(e.url),
        headers: redactedHeaders(e.headers),
        body: e.body === null ? null : cut(redactBody(e.body)),
      },
      response:
        e.status === undefined
          ? null
          : {
              status: e.status,
              durationMs: e.durationMs,
              headers: redactedHeaders(e.responseHeaders ?? {}),
              // Null: streamed into a file, not kept.
              body: e.responseBody == null ? null : cut(redactBody(e.responseBody)),
            },
      ...(e.status === undefined ? { error: e.error ?? null } : {}),
    }));
    const text = JSON.stringify({ header, removed: REMOVED, exchanges, conclusion }, null, 2);
    return this.#scrub(`${text}\n`);
  }

  /**
   * A token the service issued, or a download link it gave, is a secret from then on, wherever
   * it shows up again.
   */
  #learnTokens(body: string | null | undefined): void {
    if (!body) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return; // Not JSON: nothing to learn.
    }
    // A link given as the answer itself (remote/shapes.ts, rule 1).
    if (typeof parsed === 'string' && LINK.test(parsed)) {
      this.#learnLink(parsed);
      return;
    }
    if (!parsed || typeof parsed !== 'object') return;
    const fields = parsed as Record<string, unknown>;
    for (const key of ['access_token', 'refresh_token', 'id_token']) {
      const value = fields[key];
      if (typeof value === 'string') this.secret(value);
    }
    for (const key of LINK_KEYS) {
      const value = fields[key];
      if (typeof value === 'string' && LINK.test(value)) this.#learnLink(value);
    }
  }

  /** A link's path is its capability: removed wherever it occurs, its host kept to say where. */
  #learnLink(url: string): void {
    const path = pathOf(url);
    this.secret(path.length >= 4 ? path : url);
  }

  /** Net 2: every known secret, and its Basic and URL-encoded forms, wherever it occurs. */
  #scrub(text: string): string {
    let out = text;
    const forms = new Set<string>();
    for (const s of this.#secrets) {
      forms.add(s);
      forms.add(encodeURIComponent(s));
      forms.add(Buffer.from(s).toString('base64').replace(/=+$/, ''));
      // As JSON writes it inside a string (a quote or a backslash in it escaped).
      forms.add(JSON.stringify(s).slice(1, -1));
    }
    // Longest first, so a secret inside another is not left half-written.
    for (const form of [...forms].sort((a, b) => b.length - a.length)) {
      if (form.length >= 4) out = out.split(form).join(REMOVED);
    }
    return out;
  }
}

function flatHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

function bodyOf(body: unknown, form: unknown, json: unknown): string | null {
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  if (body instanceof FormData) {
    const parts = [...body.entries()].map(([name, value]) =>
      typeof value === 'string'
        ? `${name}=${value}`
        : `${name}: file ${JSON.stringify(value.name)} (${value.size} bytes, not kept)`,
    );
    return `(multipart) ${parts.join('; ')}`;
  }
  if (form && typeof form === 'object') {
    return new URLSearchParams(form as Record<string, string>).toString();
  }
  if (json !== undefined) return JSON.stringify(json);
  return null;
}

function redactedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, redactHeader(k, v)]));
}

function redactHeader(name: string, value: string): string {
  // A redirect's Location carries the OAuth code of an authorise answer.
  if (!SECRET_HEADER.test(name)) return /^https?:\/\//.test(value) ? redactUrl(value) : value;
  // Keep the scheme: "Bearer" or "Basic" says which authentication was sent.
  const scheme = /^(Bearer|Basic)\s/i.exec(value)?.[1];
  return scheme ? `${scheme} ${REMOVED}` : REMOVED;
}

/** A URL with the values of its secret query parameters removed. */
export function redactUrl(url: string, everyValue = false): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username || parsed.password) {
    parsed.username = '';
    parsed.password = '';
  }
  const params = [...parsed.searchParams.entries()].map(
    ([k, v]) =>
      `${encodeURIComponent(k)}=${everyValue || SECRET_PARAM.test(k) ? REMOVED : encodeURIComponent(v)}`,
  );
  const query = params.length > 0 ? `?${params.join('&')}` : '';
  return `${parsed.origin}${parsed.pathname}${query}`;
}

/** A JSON or form body with secret values removed, and the query of every link in it. */
function redactBody(body: string): string {
  try {
    return JSON.stringify(redactJson(JSON.parse(body)));
  } catch {
    // Not JSON: a form (`a=1&b=2`) is redacted by key; other text is kept as it is.
  }
  if (/^[\w.%-]+=[^&\s]*(&[\w.%-]+=[^&\s]*)*$/.test(body.trim())) {
    return [...new URLSearchParams(body.trim())]
      .map(([k, v]) => `${k}=${SECRET_PARAM.test(k) ? REMOVED : v}`)
      .join('&');
  }
  return body.replace(/https?:\/\/[^\s"'<>]+/g, (url) => redactUrl(url, true));
}

/** The keys a download link may come under (remote/shapes.ts). */
const LINK_KEYS = ['url', 'link', 'href'] as const;
const LINK = /^https?:\/\//;

function redactJson(value: unknown, key = '', top = true): unknown {
  if (SECRET_KEY.test(key) && (typeof value === 'string' || typeof value === 'number')) {
    return REMOVED;
  }
  // A download link is a capability (whoever holds it may fetch the file): only its host stays.
  // So is an answer that is a link and nothing else.
  const linkKey = (LINK_KEYS as readonly string[]).includes(key) || (top && key === '');
  if (linkKey && typeof value === 'string' && LINK.test(value)) {
    return `${originOf(value)}/${REMOVED}`;
  }
  if (Array.isArray(value)) return value.map((v) => redactJson(v, '', false));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(v, k, false)]));
  }
  // A link's query may be its signature (a download link): every value of it goes.
  if (typeof value === 'string' && /^https?:\/\/\S+\?/.test(value)) return redactUrl(value, true);
  return value;
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return REMOVED;
  }
}

function cut(text: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= BODY_LIMIT) return text;
  return `${Buffer.from(text).subarray(0, BODY_LIMIT).toString('utf8')}… (cut at ${BODY_LIMIT} of ${bytes} bytes)`;
}
