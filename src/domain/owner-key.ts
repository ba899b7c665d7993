/**
 * An owner as one string, `company:123` or `trust:20053`: a company id and a trust id may be
 * the same number, so maps and sets of owners key on both.
 */
import type { OwnerRef } from './types.js';

export function ownerKey(owner: OwnerRef): string {
  return `${owner.kind}:${owner.id}`;
}
