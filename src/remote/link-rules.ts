/**
 * Where a download link may point, as pure decisions on a URL and on an address the link's host
 * resolved to (docs/operating.md, "What docsync trusts"). The service's links are fetched with no
 * credentials, but from this machine: a link to the status page on loopback, to a host inside
 * the firm's network or to the cloud's metadata address would save what answers there into a
 * document folder. So, by default, a link must be https and reach a public address; when
 * `service.linkHosts` is set, only its origins are fetched, and those may be plain http on a
 * private address (the simulator's link host on 127.0.0.1). docsync's own listeners are never a
 * link's target. Address ranges come from ipaddr.js, not from a hand-kept list.
 */
import ipaddr from 'ipaddr.js';
import type { LinkRule } from '../domain/errors.js';

export interface LinkRules {
  /** `service.linkHosts` as origins (`https://files.example.com`); null: not set. */
  readonly origins: readonly string[] | null;
  /** Ports docsync itself listens on (status page, webhook receiver, login callback). */
  readonly ownPorts: ReadonlySet<number>;
}

export interface LinkRefusal {
  readonly rule: LinkRule;
  /** The refused link's scheme, host and port (`http://127.0.0.1:8788`). */
  readonly origin: string;
  /** The address that was refused, when the rule is about one. */
  readonly address?: string;
  /** The address's range as ipaddr.js names it (`loopback`, `private`, `uniqueLocal`, ...). */
  readonly range?: string;
}

/** How many redirects a link may take: a storage host redirects once, to a region or a CDN. */
export const MAX_LINK_REDIRECTS = 3;

/** The origins of `service.linkHosts`, as URL gives them (`https://Files.example.com:443/` → `https://files.example.com`). */
export function linkOrigins(hosts: readonly string[] | undefined): readonly string[] | null {
  return hosts === undefined ? null : hosts.map((host) => new URL(host).origin);
}

/**
 * The URL's own verdict, before any connection: its scheme, its origin against the list, and an
 * address written in the URL itself (which no lookup would see). Null: go on to the lookup.
 */
export function refuseUrl(url: URL, rules: LinkRules): LinkRefusal | null {
  const origin = url.origin;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { rule: 'scheme', origin };
  if (rules.origins !== null && !rules.origins.includes(origin))
    return { rule: 'not-listed', origin };
  if (rules.origins === null && url.protocol !== 'https:') return { rule: 'not-https', origin };
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(literal)) return null;
  return refuseAddress(literal, url, rules, () => false);
}

/**
 * The verdict on one address the link's host resolved to (or was written as). `onThisMachine`
 * says whether a public address is one of this machine's own, where docsync's listeners answer.
 */
export function refuseAddress(
  address: string,
  url: URL,
  rules: LinkRules,
  onThisMachine: (address: string) => boolean,
): LinkRefusal | null {
  const range = addressRange(address);
  const origin = url.origin;
  if (rules.ownPorts.has(portOf(url)) && (range !== 'unicast' || onThisMachine(address)))
    return { rule: 'own-listener', origin, address, range };
  if (rules.origins === null && range !== 'unicast')
    return { rule: 'private-address', origin, address, range };
  return null;
}

/**
 * The range of an address, as ipaddr.js names it; `unicast` is a public address, and only that
 * passes unlisted. An IPv4 address written as IPv6 (`::ffff:127.0.0.1`, or NAT64's
 * `64:ff9b::7f00:1`) is judged as the IPv4 address it reaches; anything unreadable is `invalid`.
 */
export function addressRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && parsed.range() === 'rfc6052') {
    const bytes = parsed.toByteArray().slice(12);
    return ipaddr.fromByteArray(bytes).range();
  }
  return parsed.range();
}

/** The refusal in the operator's words: the link's host and the rule it broke. */
export function refusalSentence(refusal: LinkRefusal, redirectedFrom?: string): string {
  const host = refusal.origin;
  const via = redirectedFrom ? ` (redirected from ${redirectedFrom})` : '';
  const listed = 'unless its origin is listed in service.linkHosts';
  switch (refusal.rule) {
    case 'scheme':
      return `download link refused: ${host}${via} is not an http(s) link`;
    case 'not-https':
      return `download link refused: ${host}${via} is plain http; links must be https ${listed}`;
    case 'not-listed':
      return `download link refused: ${host}${via} is not one of service.linkHosts`;
    case 'private-address':
      return `download link refused: ${host}${via} is at ${refusal.address}, a ${describeRange(refusal.range)} address; links must reach a public address ${listed}`;
    case 'own-listener':
      return `download link refused: ${host}${via} is docsync's own listener (port ${portOf(new URL(host))} of this machine), never a link's host, listed or not`;
    case 'redirects':
      return `download link refused: ${host}${via} redirected more than ${MAX_LINK_REDIRECTS} times`;
  }
}

const portOf = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  carrierGradeNat: 'carrier-grade NAT',
};

function describeRange(range: string | undefined): string {
  return range === undefined ? 'non-public' : (RANGE_WORDS[range] ?? `non-public (${range})`);
}
