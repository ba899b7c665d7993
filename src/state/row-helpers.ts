/** Small conversions shared by the repositories, so every table maps owners and JSON alike. */
import type { OwnerKind, OwnerRef } from '../domain/types.js';

export interface OwnerColumns {
  owner_kind: OwnerKind;
  owner_id: string;
}

export function ownerOf(row: OwnerColumns): OwnerRef {
  return { kind: row.owner_kind, id: row.owner_id };
}

/** Named parameters for `@ownerKind, @ownerId` in statements. */
export function ownerParams(owner: OwnerRef): { ownerKind: OwnerKind; ownerId: string } {
  return { ownerKind: owner.kind, ownerId: owner.id };
}

/** Owners as a JSON list of `[kind, id]` pairs, for `json_each(?)` in one statement. */
export function ownersJson(owners: readonly OwnerRef[]): string {
  return JSON.stringify(owners.map((o) => [o.kind, o.id]));
}

export function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}
