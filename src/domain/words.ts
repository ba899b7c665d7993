/**
 * Words for the operator's lines: a count with its noun ("1 file", "3 files"), and an entity by
 * its name with its id ("Acme Pty Ltd (company 4411)").
 */
import type { OwnerRef } from './types.js';

/** "1 document", "3 documents", "2 entities". */
export function plural(n: number, noun: string): string {
  if (n === 1) return `${n} ${noun}`;
  return `${n} ${/[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`}`;
}

/** The name a person knows it by, with the id the commands take; the id alone when unnamed. */
export function entityLabel(owner: OwnerRef, name: string | null | undefined): string {
  const id = `${owner.kind} ${owner.id}`;
  return name ? `${name} (${id})` : id;
}
