/**
 * A trust's name, which the public trust examples do not carry: they give `trustNameId`, the
 * contact (of type Other Entity) whose `name` is the trust's (api.md, "Where the public pages
 * show something else"). So: the record's `name`; else that contact's name; else "Trust <id>",
 * with why, which the engine reports as a warning. A firm's trusts share few contacts and the
 * catalogue is read again on every full round, so a contact's name is kept for a while rather
 * than asked for again each time.
 */
import type { Trust } from '../domain/types.js';
import { ApiError } from './api-error.js';
import type { TrustRead } from './schemas.js';

/** How long a contact's name is taken as read: a renamed trust shows within this. */
export const CONTACT_NAME_TTL_MS = 60 * 60_000;

export class TrustNames {
  readonly #names = new Map<string, { readonly name: string | null; readonly at: number }>();

  constructor(
    private readonly readContact: (contactId: string) => Promise<Record<string, unknown>>,
    private readonly now: () => number = Date.now,
  ) {}

  async named(read: TrustRead): Promise<Trust> {
    const base = {
      kind: 'trust' as const,
      id: read.id,
      abn: read.abn,
      type: read.type,
      raw: read.raw,
    };
    if (read.name) return { ...base, name: read.name };
    if (read.trustNameId === null) {
      return byId(base, 'the service sent neither a `name` nor a `trustNameId`');
    }
    const found = await this.#contactName(read.trustNameId);
    if (typeof found === 'string') return { ...base, name: found, nameFrom: 'contact' };
    return byId(
      base,
      `the service sent no \`name\`, and its \`trustNameId\` contact ${read.trustNameId} ${found.why}`,
    );
  }

  async #contactName(contactId: string): Promise<string | { why: string }> {
    const kept = this.#names.get(contactId);
    if (kept && this.now() - kept.at < CONTACT_NAME_TTL_MS) {
      return kept.name ?? { why: 'has no name' };
    }
    let contact: Record<string, unknown>;
    try {
      contact = await this.readContact(contactId);
    } catch (error) {
      // No grant, no token (AuthRequiredError): not this trust's problem; the run stops.
      if (!(error instanceof ApiError)) throw error;
      return { why: `could not be read (${error.message})` };
    }
    const name = nameOf(contact);
    this.#names.set(contactId, { name, at: this.now() });
    return name ?? { why: 'has no name' };
  }
}

/** A contact's `name`, else its `firstName lastName` (api.md, Contact). */
function nameOf(contact: Record<string, unknown>): string | null {
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const whole = text(contact.name);
  if (whole) return whole;
  const parts = [text(contact.firstName), text(contact.lastName)].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : null;
}

function byId(base: Omit<Trust, 'name'>, why: string): Trust {
  return { ...base, name: `Trust ${base.id}`, nameFrom: 'id', unnamed: why };
}
