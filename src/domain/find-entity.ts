/**
 * Finds the entity a person means by "id or name" (`docsync open company acme`): the id in any
 * spelling (domain/ids.ts), else the whole name in any letter case, else a part of the name.
 * Each step stops at the first that finds anything, so an exact name wins over names that merely
 * contain it; two or more hits at that step are ambiguous and are listed, never guessed between.
 */
import { sameId } from './ids.js';
import type { Entity } from './types.js';

export type EntityMatch =
  | { readonly kind: 'one'; readonly entity: Entity }
  | { readonly kind: 'ambiguous'; readonly candidates: readonly Entity[] }
  | { readonly kind: 'none' };

export function findEntity(entities: Iterable<Entity>, query: string): EntityMatch {
  const all = [...entities];
  const wanted = fold(query);
  const steps: ((e: Entity) => boolean)[] = [
    (e) => sameId(e.id, query),
    (e) => fold(e.name) === wanted,
    (e) => wanted !== '' && fold(e.name).includes(wanted),
  ];
  for (const step of steps) {
    const hits = all.filter(step);
    if (hits.length === 1) return { kind: 'one', entity: hits[0]! };
    if (hits.length > 1) return { kind: 'ambiguous', candidates: hits };
  }
  return { kind: 'none' };
}

/** Case- and space-insensitive form of a name: what a person typing it would not care about. */
function fold(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en');
}
