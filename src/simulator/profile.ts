/**
 * Which reading of the service the simulator speaks. `api` is api.md's contract (every path with
 * and without `/cas`, trusts with `name`, details with `lastUpdatedTimestamp`). `public-docs` is
 * the service's public pages where they differ from it (api.md, "Where the public pages show
 * something else"): trusts with only `trustNameId`, company document details without
 * `lastUpdatedTimestamp`, `/cas` on trust documents only (and on assigning a status), webhook
 * company ids without dashes and the client code in lower case, OAuth-style error bodies. A
 * client that syncs against both copes with either.
 */

export const SIM_PROFILES = ['api', 'public-docs'] as const;

export type SimProfile = (typeof SIM_PROFILES)[number];

export function isSimProfile(value: unknown): value is SimProfile {
  return (SIM_PROFILES as readonly unknown[]).includes(value);
}

/**
 * Whether a route (its template, as matched without `/cas`) answers a path with or without the
 * prefix. The public pages document company documents at `/companies/{companyId}/documents…`,
 * trust documents at `/cas/trusts/{trustId}/documents…`, and a company's status assignment
 * under `/cas`; everything else is served either way, as api.md says.
 */
export function servesPath(profile: SimProfile, template: string, withCas: boolean): boolean {
  if (profile === 'api') return true;
  if (template.startsWith('/trusts/{ownerId}/documents')) return withCas;
  if (template.startsWith('/companies/{ownerId}/documents')) {
    return template.endsWith('/statuses') ? withCas : !withCas;
  }
  return true;
}

/** The error body: api.md's `{"error": {code, message}}` or OAuth's (RFC 6750 3.1). */
export function errorBodyIn(profile: SimProfile, code: string, message: string): unknown {
  return profile === 'api'
    ? { error: { code, message } }
    : { error: code, error_description: message };
}

/** A company id as the public webhook example writes it: 32 lower-case hex digits, no dashes. */
export function webhookEntityId(profile: SimProfile, id: string): string {
  return profile === 'api' ? id : id.replaceAll('-', '').toLowerCase();
}
