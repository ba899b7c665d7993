/**
 * The guard in front of the status page's actions. A POST is accepted only when it carries the
 * token the page was served with (another site's form cannot read it), comes from the page's own
 * origin, and, on a listener bound to loopback, names a loopback host: a page on another site
 * whose name an attacker points at 127.0.0.1 (DNS rebinding) would be same-origin with the page
 * and could read the token, but its requests name the attacker's host. Syncthing's GUI does the
 * same host check. The token is random per start: a page from before a restart must be reloaded.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = 'csrf';

export class CsrfGuard {
  readonly token = randomBytes(32).toString('base64url');
  readonly #loopbackOnly: boolean;

  constructor(listenHost: string) {
    this.#loopbackOnly = isLoopback(listenHost);
  }

  /** Null when the request may act; otherwise why not, for the 403's body. */
  refusal(req: IncomingMessage, formToken: string | null): string | null {
    const given = headerOf(req, CSRF_HEADER) ?? formToken;
    if (!given || !sameSecret(given, this.token)) {
      return "the request does not carry this page's token; reload the page and try again";
    }
    const host = headerOf(req, 'host');
    if (!host) return 'the request names no host';
    if (this.#loopbackOnly && !isLoopback(hostnameOf(host))) {
      return `the host ${host} is not this machine; open the page at 127.0.0.1 or localhost`;
    }
    const origin = headerOf(req, 'origin');
    if (origin !== null && origin !== `http://${host}`) {
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

function isLoopback(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1';
}
