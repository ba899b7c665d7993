/**
 * The guard in front of the status listener. Two attacks, two checks:
 *
 * - DNS rebinding: a page on another site whose name the attacker points at this machine's
 *   address is same-origin with the status page, so it could read the page (every client's
 *   name, the CSRF token) and then post the actions. Its requests name the attacker's host, so
 *   the page, the document links and the actions answer only a Host that is `localhost`, an
 *   IP address (rebinding needs a name), the listen host, or status.publicUrl's host.
 *   Syncthing's GUI checks the Host the same way. `/healthz` and `/metrics` stay open to any
 *   Host (monitoring scrapes them by name), since they show no names or paths.
 * - Cross-site requests: a POST is accepted only with the token the page was served with
 *   (another site's form cannot read it) and from the page's own origin: `http://` and the
 *   Host it names, or status.publicUrl's origin when a proxy serves the page (over HTTPS, say).
 *
 * The token is random per start: a page from before a restart must be reloaded.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = 'csrf';

export class CsrfGuard {
  readonly token = randomBytes(32).toString('base64url');
  /** Host names (lower case) the listener answers to besides `localhost` and IP addresses. */
  readonly #names = new Set<string>();
  /** status.publicUrl's origin: where a proxy serves the page from. */
  readonly #publicOrigin: string | null;

  constructor(listenHost: string, publicUrl?: string) {
    this.#names.add(listenHost.toLowerCase());
    const pub = publicUrl === undefined ? null : new URL(publicUrl);
    this.#publicOrigin = pub?.origin ?? null;
    if (pub) this.#names.add(hostnameOf(pub.host).toLowerCase());
  }

  /** Null when the request names a host the page may be served at; otherwise why not (403). */
  hostRefusal(req: IncomingMessage): string | null {
    const host = headerOf(req, 'host');
    if (!host) return 'the request names no host';
    const name = hostnameOf(host).toLowerCase();
    if (isLocalhost(name) || isIP(name) !== 0 || this.#names.has(name)) return null;
    return (
      `the host ${host} is not an address of this page; open it at 127.0.0.1, localhost or ` +
      "this machine's IP address, or set status.publicUrl to the address the browsers use"
    );
  }

  /** Null when the request may act; otherwise why not, for the 403's body. */
  refusal(req: IncomingMessage, formToken: string | null): string | null {
    const given = headerOf(req, CSRF_HEADER) ?? formToken;
    if (!given || !sameSecret(given, this.token)) {
      return "the request does not carry this page's token; reload the page and try again";
    }
    const hostRefused = this.hostRefusal(req);
    if (hostRefused !== null) return hostRefused;
    const origin = headerOf(req, 'origin');
    if (
      origin !== null &&
      origin !== `http://${headerOf(req, 'host')}` &&
      origin !== this.#publicOrigin
    ) {
      return `the request comes from ${origin}, not from this page`;
    }
    const site = headerOf(req, 'sec-fetch-site');
    if (site !== null && site !== 'same-origin' && site !== 'none') {
      return 'the request comes from another site';
    }
    return null;
  }
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `127.0.0.1:8788` → `127.0.0.1`; `[::1]:8788` → `::1`. */
function hostnameOf(host: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(host);
  if (bracketed) return bracketed[1]!;
  return host.replace(/:\d+$/, '');
}

/** `localhost` and the names under it are this machine by definition (RFC 6761), not by DNS. */
function isLocalhost(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}
