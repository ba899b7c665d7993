/**
 * The link rules (link-rules.ts) applied where the connection is made, so that what is checked
 * is what is connected to: the URL before the request, every address its host resolves to in
 * the lookup the socket connects with (a second answer of the DNS, "rebinding", never reaches
 * a socket unchecked), and each redirect's URL before it is followed, at most a few.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { networkInterfaces } from 'node:os';
import type { OptionsInit } from 'got';
import { LinkRefusedError } from '../domain/errors.js';
import {
  type LinkRefusal,
  type LinkRules,
  MAX_LINK_REDIRECTS,
  refusalSentence,
  refuseAddress,
  refuseUrl,
} from './link-rules.js';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export interface LinkGuardOptions {
  /** `service.linkHosts`'s origins; null when it is not set. */
  readonly origins: readonly string[] | null;
  /** The ports of docsync's listeners named in the configuration. */
  readonly ownPorts?: Iterable<number>;
  /** The resolver (tests pass one that answers as a rebinding DNS would). */
  readonly resolve?: typeof dnsLookup;
}

export class LinkGuard {
  readonly #origins: readonly string[] | null;
  readonly #ownPorts: Set<number>;
  readonly #resolve: typeof dnsLookup;

  constructor(options: LinkGuardOptions) {
    this.#origins = options.origins;
    this.#ownPorts = new Set([...(options.ownPorts ?? [])].filter((port) => port > 0));
    this.#resolve = options.resolve ?? dnsLookup;
  }

  /** `service.linkHosts`, or null when any https host with a public address may serve links. */
  get origins(): readonly string[] | null {
    return this.#origins;
  }

  /** A listener took `port` (one configured as 0 shows its port only once listening). */
  addOwnPort(port: number): void {
    if (port > 0) this.#ownPorts.add(port);
  }

  get rules(): LinkRules {
    return { origins: this.#origins, ownPorts: this.#ownPorts };
  }

  /**
   * got's options for fetching `link`: its lookup checks each address, and each redirect is
   * checked like the link. Throws LinkRefusedError when the link itself is refused.
   */
  requestOptions(
    link: string,
  ): Pick<OptionsInit, 'dnsLookup' | 'followRedirect' | 'maxRedirects' | 'hooks'> {
    const url = new URL(link);
    this.#check(url);
    return {
      dnsLookup: this.#lookupFor(url) as never,
      followRedirect: true,
      maxRedirects: MAX_LINK_REDIRECTS,
      hooks: {
        beforeRedirect: [
          (options) => {
            const next = options.url as URL;
            this.#check(next, url.origin);
            options.dnsLookup = this.#lookupFor(next, url.origin) as never;
          },
        ],
      },
    };
  }

  /**
   * The link's verdict without fetching it (`docsync check`): the URL's rules, then every address
   * its host resolves to now. Null when it would be fetched.
   */
  async judge(link: string): Promise<LinkRefusal | null> {
    const url = new URL(link);
    const refused = refuseUrl(url, this.rules);
    if (refused) return refused;
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      this.#resolve(url.hostname, { all: true }, (error, found) =>
        error ? reject(error) : resolve(found),
      ),
    );
    for (const { address } of addresses) {
      const refusal = refuseAddress(address, url, this.rules, onThisMachine);
      if (refusal) return refusal;
    }
    return null;
  }

  #check(url: URL, redirectedFrom?: string): void {
    const refusal = refuseUrl(url, this.rules);
    if (refusal) throw refusedError(refusal, redirectedFrom);
  }

  /**
   * The lookup the socket connects with: every address the host resolves to must pass, or the
   * connection fails with the refusal (one private address among public ones is refused, not
   * skipped: a link host has no business there).
   */
  #lookupFor(url: URL, redirectedFrom?: string) {
    return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
      this.#resolve(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, []);
        for (const { address } of addresses) {
          const refusal = refuseAddress(address, url, this.rules, onThisMachine);
          if (refusal) return callback(refusedError(refusal, redirectedFrom), []);
        }
        const first = addresses[0];
        if (options.all || first === undefined) return callback(null, addresses);
        callback(null, first.address, first.family);
      });
    };
  }
}

export function refusedError(refusal: LinkRefusal, redirectedFrom?: string): LinkRefusedError {
  return new LinkRefusedError(
    refusal.origin,
    refusal.rule,
    refusalSentence(refusal, redirectedFrom),
    refusal.address,
  );
}

/** Whether `address` is one of this machine's own (where its listeners answer). */
function onThisMachine(address: string): boolean {
  for (const list of Object.values(networkInterfaces())) {
    if (list?.some((i) => i.address === address)) return true;
  }
  return false;
}
