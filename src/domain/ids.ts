/**
 * Ids are opaque strings inside docsync, sent back exactly as the service wrote them (api.md).
 * But the service does not always write one id the same way: its lists give company ids as
 * UUIDs with dashes, its public webhook example as 32 lower-case hex digits without them, and a
 * JSON number and its digits as a string are the same trust. Whenever an id from one source is
 * compared with an id from another, it is compared in this one normal form: lower case, the
 * dashes of a UUID removed, surrounding spaces trimmed.
 */

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/;

/** The normal form of an id: what two spellings of the same id have in common. */
export function idKey(id: string | number): string {
  const text = String(id).trim().toLowerCase();
  return UUID.test(text) ? text.replaceAll('-', '') : text;
}

/** Whether two spellings name the same id. */
export function sameId(a: string | number, b: string | number): boolean {
  return idKey(a) === idKey(b);
}
