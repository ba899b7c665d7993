/**
 * Reading answers where the service's public pages are silent on their shape (api.md marks the
 * shapes [ours]): where a list's items are, and how a download link is given. Pure: each reader
 * takes the answer and says what it found and how, or why it found nothing. The rules are
 * numbered; `test/unit/shapes.test.ts` has a case per rule, and `docsync check` prints which
 * rule read each answer, so a firm's first `check --save` shows what the real service sends.
 */

/** The keys api.md gives the lists, by the list: `service.shapes.lists` is keyed by these. */
export const LIST_KEYS = [
  'companies',
  'trusts',
  'trustRelationships',
  'statusTypes',
  'documents',
  'contacts',
  'unitTransactions',
] as const;

export type ListKey = (typeof LIST_KEYS)[number];

/** api.md's name of the multipart part an upload's file goes in ([ours]). */
export const DEFAULT_UPLOAD_FIELD = 'file';

export function isListKey(key: string): key is ListKey {
  return (LIST_KEYS as readonly string[]).includes(key);
}

/** Which rule found a list's items. */
export type ListFound =
  /** 1: under the key `service.shapes.lists` names for this list. */
  | { readonly rule: 1; readonly key: string }
  /** 2: under api.md's key. */
  | { readonly rule: 2; readonly key: string }
  /** 3: the answer is the array itself. */
  | { readonly rule: 3; readonly key: null }
  /** 4: under the answer's only key that holds an array. */
  | { readonly rule: 4; readonly key: string };

export type ListRead =
  | {
      readonly items: readonly unknown[];
      /** The answer's `total`, when it gives one as a count. */
      readonly total: number | null;
      readonly found: ListFound;
    }
  | { readonly problem: string };

/**
 * The items of a list answer. `key` is api.md's key of this list; `configured` the key
 * `service.shapes.lists` names for it, which is then the only place looked at (rule 1: a firm
 * that named it knows, and a list found elsewhere would be a guess it asked not to be made).
 * Otherwise: api.md's key (2), the answer as an array (3), its only array-valued key (4).
 */
export function readList(body: unknown, key: string, configured?: string): ListRead {
  if (configured !== undefined) {
    const items = arrayAt(body, configured);
    if (items) return { items, total: totalOf(body), found: { rule: 1, key: configured } };
    return {
      problem: `expected the list under \`${configured}\` (service.shapes.lists.${key}), got ${described(body)}`,
    };
  }
  const named = arrayAt(body, key);
  if (named) return { items: named, total: totalOf(body), found: { rule: 2, key } };
  if (Array.isArray(body)) return { items: body, total: null, found: { rule: 3, key: null } };
  const arrays = isObject(body) ? Object.keys(body).filter((k) => Array.isArray(body[k])) : [];
  // An empty one may be anything (`errors: []`): read as the list, it would say every entity is
  // gone. Only a list with items in it is taken unnamed; an empty one needs service.shapes.
  const only =
    arrays.length === 1 && (body as Record<string, unknown[]>)[arrays[0]!]!.length > 0
      ? arrays[0]!
      : null;
  if (only !== null) {
    const items = (body as Record<string, unknown[]>)[only]!;
    return { items, total: totalOf(body), found: { rule: 4, key: only } };
  }
  const which =
    arrays.length > 1
      ? `several lists (${arrays.map((k) => `\`${k}\``).join(', ')}): name the one to read in service.shapes.lists.${key}`
      : arrays.length === 1
        ? `only an empty list under \`${arrays[0]}\`: if that is the list, name it in service.shapes.lists.${key}`
        : `no list: ${described(body)}`;
  return { problem: `expected the list under \`${key}\` or as the answer itself, got ${which}` };
}

/** The words a check line and the log use for how a list was found. */
export function listFoundSentence(found: ListFound): string {
  switch (found.rule) {
    case 1:
      return `under \`${found.key}\`, as service.shapes.lists sets it`;
    case 2:
      return `under \`${found.key}\`, as the contract has it`;
    case 3:
      return 'as a bare array';
    case 4:
      return `under \`${found.key}\`, its only list`;
  }
}

/** How the service gave a download link (rules 1–4; rule 5, a redirect, is read apart). */
export type LinkForm = 'string' | 'url' | 'link' | 'href' | 'redirect';

export type LinkRead =
  | { readonly url: string; readonly expiresAt: string | null; readonly form: LinkForm }
  | { readonly problem: string };

const LINK_KEYS = ['url', 'link', 'href'] as const;

/**
 * A download link: the answer as a string (1), or an object's `url` (2), `link` (3) or `href`
 * (4), the first there; a 3xx with a `Location` (5) is the HTTP layer's (service-http.ts), read
 * with `redirectLink`. Only an absolute http(s) URL is a link; where it may point is the link
 * guard's to judge when it is fetched (link-guard.ts).
 */
export function readLink(body: unknown): LinkRead {
  if (typeof body === 'string') return linkOf(body, 'string', null);
  if (!isObject(body)) return { problem: `expected a link, got ${described(body)}` };
  const expiresAt = typeof body.expiresAt === 'string' ? body.expiresAt : null;
  for (const key of LINK_KEYS) {
    if (body[key] !== undefined && body[key] !== null) {
      const value = body[key];
      if (typeof value !== 'string')
        return { problem: `${key}: expected an absolute http(s) URL, got ${described(value)}` };
      return linkOf(value, key, expiresAt);
    }
  }
  return { problem: `expected \`url\`, \`link\` or \`href\`, got ${described(body)}` };
}

/** Rule 5: a redirect's `Location`, resolved against the URL that answered with it. */
export function redirectLink(location: string, answeredUrl: string): LinkRead {
  let url: URL;
  try {
    url = new URL(location, answeredUrl);
  } catch {
    return { problem: 'a redirect whose Location is no URL' };
  }
  return linkOf(url.href, 'redirect', null);
}

/** The words a check line uses for how a link was given. */
export function linkFormSentence(form: LinkForm): string {
  switch (form) {
    case 'string':
      return 'the answer is the link itself (a JSON string)';
    case 'redirect':
      return 'a redirect (3xx with Location) to the file';
    default:
      return `\`{"${form}": …}\`${form === 'url' ? ', as the contract has it' : ''}`;
  }
}

function linkOf(text: string, form: LinkForm, expiresAt: string | null): LinkRead {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Not echoed: a link, even a relative one, may carry its signature.
    return {
      problem: `expected an absolute http(s) URL, got text of ${text.length} characters that is not one`,
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { problem: `expected an http(s) URL, got one of ${url.protocol}` };
  return { url: url.href, expiresAt, form };
}

function arrayAt(body: unknown, key: string): unknown[] | null {
  if (!isObject(body)) return null;
  const value = body[key];
  return Array.isArray(value) ? value : null;
}

function totalOf(body: unknown): number | null {
  if (!isObject(body)) return null;
  const total = body.total;
  return typeof total === 'number' && Number.isInteger(total) && total >= 0 ? total : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What an answer was, in a few words: its keys, or its type. */
function described(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isObject(value)) {
    const keys = Object.keys(value);
    return keys.length === 0
      ? 'an empty object'
      : `an object with ${keys
          .slice(0, 8)
          .map((k) => `\`${k}\``)
          .join(', ')}${keys.length > 8 ? ', …' : ''}`;
  }
  // A string's text is not shown: where a link was expected it may be one, signature and all.
  return typeof value === 'string' ? `a string of ${value.length} characters` : typeof value;
}
