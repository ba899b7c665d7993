/**
 * The shapes of the service's answers where api.md's are ours: read by the rules of shapes.ts,
 * with what `service.shapes` sets, and remembered as seen (which rule read each list, how links
 * came, how change times were written), so `docsync check` can say what the service sends.
 */
import type { TimestampForm } from '../domain/timestamps.js';
import { ApiError } from './api-error.js';
import {
  DEFAULT_UPLOAD_FIELD,
  type LinkForm,
  type LinkRead,
  type ListFound,
  type ListKey,
  readLink,
  readList,
} from './shapes.js';

/** `service.shapes` of the configuration. */
export interface ShapeSettings {
  /** The key each list's items are under, where it is not api.md's. */
  readonly lists: Readonly<Partial<Record<ListKey, string>>>;
  /** The name of the multipart part an upload's file goes in. */
  readonly uploadField: string;
}

export const DEFAULT_SHAPES: ShapeSettings = { lists: {}, uploadField: DEFAULT_UPLOAD_FIELD };

/** Where a change time was read: a document list's item, or a document's details. */
export type TimestampPlace = 'list' | 'details';

/** How a change time came: one of the forms, left out, or not a timestamp at all. */
export type TimestampSeen = TimestampForm | 'missing' | 'unreadable';

export interface ShapesSeen {
  /** By route as called (`GET /cas/companies`): the rule that read its list. */
  readonly lists: ReadonlyMap<string, ListFound>;
  /** How the last download link came, and from which route. */
  readonly link: { readonly form: LinkForm; readonly route: string } | null;
  /** By place: how many change times came in each form, and the first of each. */
  readonly timestamps: ReadonlyMap<
    TimestampPlace,
    ReadonlyMap<TimestampSeen, { count: number; example: string | null }>
  >;
}

export class ServiceShapes {
  readonly #lists = new Map<string, ListFound>();
  #link: ShapesSeen['link'] = null;
  readonly #timestamps = new Map<
    TimestampPlace,
    Map<TimestampSeen, { count: number; example: string | null }>
  >();

  constructor(readonly settings: ShapeSettings = DEFAULT_SHAPES) {}

  /** The items of a list answer (shapes.ts, readList); an ApiError naming the route when none. */
  list(body: unknown, route: string, key: ListKey): { items: unknown[]; total: number | null } {
    const read = readList(body, key, this.settings.lists[key]);
    if ('problem' in read) throw malformed(route, read.problem, body);
    this.#lists.set(route, read.found);
    return { items: read.items as unknown[], total: read.total };
  }

  /** A download link as read (shapes.ts, readLink or redirectLink). */
  link(read: LinkRead, route: string, body: unknown): { url: string; expiresAt: string | null } {
    if ('problem' in read) throw malformed(route, read.problem, body);
    this.#link = { form: read.form, route };
    return { url: read.url, expiresAt: read.expiresAt };
  }

  /** The link of an answer's body (rules 1–4). */
  linkOfBody(body: unknown, route: string) {
    return this.link(readLink(body), route, body);
  }

  /** Notes how a record's `lastUpdatedTimestamp` was written (the record is read apart). */
  sawTimestamp(place: TimestampPlace, record: unknown): void {
    const value =
      typeof record === 'object' && record !== null
        ? (record as { lastUpdatedTimestamp?: unknown }).lastUpdatedTimestamp
        : undefined;
    const seen = timestampSeen(value);
    const forms = this.#timestamps.get(place) ?? new Map();
    this.#timestamps.set(place, forms);
    const known = forms.get(seen);
    if (known) known.count += 1;
    else forms.set(seen, { count: 1, example: typeof value === 'string' ? value : null });
  }

  seen(): ShapesSeen {
    return { lists: new Map(this.#lists), link: this.#link, timestamps: this.#timestamps };
  }
}

/**
 * The form of a change time, from what follows its seconds: cheap enough for every item of a
 * listing (whether it reads at all is the schema's to say).
 */
export function timestampSeen(value: unknown): TimestampSeen {
  if (value === undefined || value === null) return 'missing';
  if (typeof value !== 'string' || value.length < 19 || (value[10] !== 'T' && value[10] !== 't'))
    return 'unreadable';
  // What follows the seconds: nothing, a fraction, then perhaps a zone.
  const tail = value.slice(19);
  const last = tail[tail.length - 1];
  if (last === undefined) return 'none';
  if (last === 'Z' || last === 'z') return 'Z';
  const sign = Math.max(tail.lastIndexOf('+'), tail.lastIndexOf('-'));
  if (sign < 0) return 'none';
  const zone = tail.slice(sign);
  if (!/^[+-]00(:?00)?$/.test(zone)) return 'offset';
  return zone.length === 3 ? '+00' : zone.includes(':') ? '+00:00' : '+0000';
}

function malformed(route: string, problem: string, body: unknown): ApiError {
  return new ApiError(
    'MALFORMED_RESPONSE',
    `${route}: response does not match the contract: ${problem}`,
    { route, responseBody: body },
  );
}
