/**
 * Other shapes the simulator can answer in, where api.md's are ours and the real service may
 * differ (docs/api-contract.md): a list under another key or as a bare array, a download link
 * as a string, `{link}`, `{href}` or a redirect, change times with a zone or left out of lists,
 * a status types route that is not there or answers otherwise, an upload expected in another
 * multipart part, webhooks without `eventSubType`. Set with `--shapes`, the admin API
 * (`PUT /_admin/shapes`) or `SimulatorOptions.shapes`; applied to each answer as it leaves, so
 * the handlers keep speaking api.md.
 */
import { errorReply, type Reply } from './http-kit.js';
import type { SimProfile } from './profile.js';
import { badRequest, SimError } from './sim-error.js';

export const LINK_FORMS = ['url', 'link', 'href', 'string', 'redirect'] as const;
export const TIMESTAMP_FORMS = ['plain', 'Z', '+00:00', '+0000', '+10:00', 'missing'] as const;
export const STATUS_TYPE_FORMS = ['contract', 'absent', 'other', 'bare'] as const;

export interface ShapeOptions {
  /**
   * By api.md's key of a list (`companies`, `documents`, ...): the key its items go under, or
   * '' for the answer as a bare array.
   */
  readonly lists?: Readonly<Record<string, string>>;
  /** How a download link is given: `url` (api.md's `{url, expiresAt}`, the default), ... */
  readonly link?: (typeof LINK_FORMS)[number];
  /**
   * How `lastUpdatedTimestamp` is written: `plain` (api.md's, UTC without a zone, the default),
   * with a zone (`Z`, `+00:00`, `+0000`, or `+10:00`, the time shifted to it), or `missing`:
   * left out of list items (the details keep theirs).
   */
  readonly timestamps?: (typeof TIMESTAMP_FORMS)[number];
  /**
   * The status types route: `contract` (the default), `absent` (404, as on a service without
   * it), `other` (`{"types": [{"typeId", "description"}]}`) or `bare` (the array alone).
   */
  readonly statusTypes?: (typeof STATUS_TYPE_FORMS)[number];
  /** The multipart part an upload's file must come in; default `file` (api.md). */
  readonly uploadField?: string;
  /** false: webhook messages carry no `eventSubType`. */
  readonly webhookSubType?: boolean;
}

export class SimShapes {
  #options: ShapeOptions = {};

  constructor(
    options: ShapeOptions = {},
    private readonly profile: SimProfile = 'api',
  ) {
    this.set(options);
  }

  set(options: ShapeOptions): void {
    this.#options = checkedShapes(options);
  }

  get(): ShapeOptions {
    return { ...this.#options };
  }

  get uploadField(): string {
    return this.#options.uploadField ?? 'file';
  }

  get webhookSubType(): boolean {
    return this.#options.webhookSubType !== false;
  }

  /** The answer of `template` (matched without `/cas`) in the shapes set. */
  apply(template: string, reply: Reply): Reply {
    const o = this.#options;
    if (reply === null || reply.status >= 300) return reply;
    if (template === '/documents/statusTypes' && o.statusTypes && o.statusTypes !== 'contract')
      return statusTypesIn(o.statusTypes, reply, this.profile);
    if (template.endsWith('/download') && o.link && o.link !== 'url') return linkIn(o.link, reply);
    let body = reply.body;
    if (o.timestamps && o.timestamps !== 'plain') body = timestampsIn(o.timestamps, body, false);
    if (o.lists) body = listIn(o.lists, body);
    return body === reply.body ? reply : { ...reply, body };
  }
}

function statusTypesIn(
  form: (typeof STATUS_TYPE_FORMS)[number],
  reply: NonNullable<Reply>,
  profile: SimProfile,
): Reply {
  const types = (reply.body as { statusTypes: { id: number; name: string }[] }).statusTypes;
  if (form === 'absent')
    return errorReply(
      new SimError(404, 'not_found', 'No route for /documents/statusTypes'),
      undefined,
      profile,
    );
  if (form === 'bare') return { ...reply, body: types };
  return { ...reply, body: { types: types.map((t) => ({ typeId: t.id, description: t.name })) } };
}

function linkIn(form: (typeof LINK_FORMS)[number], reply: NonNullable<Reply>): Reply {
  const { url, expiresAt } = reply.body as { url: string; expiresAt: string };
  if (form === 'redirect')
    return { status: 302, headers: { Location: url, 'Content-Length': '0' } };
  if (form === 'string') return { ...reply, body: url };
  return { ...reply, body: { [form]: url, expiresAt } };
}

/** Every `lastUpdatedTimestamp` in `value`, rewritten; `inList`: inside an array (a list item). */
function timestampsIn(
  form: (typeof TIMESTAMP_FORMS)[number],
  value: unknown,
  inList: boolean,
): unknown {
  if (Array.isArray(value)) return value.map((item) => timestampsIn(form, item, true));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key !== 'lastUpdatedTimestamp' || typeof field !== 'string') {
      out[key] = typeof field === 'object' ? timestampsIn(form, field, inList) : field;
    } else if (form !== 'missing') out[key] = zoned(field, form);
    else if (!inList) out[key] = field;
  }
  return out;
}

/** api.md's UTC time without a zone, written with one (`+10:00`: the same instant there). */
function zoned(utc: string, form: string): string {
  if (form !== '+10:00') return `${utc}${form}`;
  const [seconds, fraction] = utc.split('.');
  const shifted = new Date(Date.parse(`${seconds}Z`) + 10 * 3_600_000).toISOString().slice(0, 19);
  return `${shifted}${fraction ? `.${fraction}` : ''}+10:00`;
}

/** A list envelope (`{<key>: [...], offset, limit, total}`) with its items elsewhere. */
function listIn(lists: Readonly<Record<string, string>>, body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('total' in body))
    return body;
  const envelope = body as Record<string, unknown>;
  const key = Object.keys(envelope).find((k) => Array.isArray(envelope[k]));
  const moved = key === undefined ? undefined : lists[key];
  if (key === undefined || moved === undefined) return body;
  if (moved === '') return envelope[key];
  const { [key]: items, ...rest } = envelope;
  return { ...rest, [moved]: items };
}

/** The options as given, or a 400 naming what is wrong (the admin API takes any JSON). */
export function checkedShapes(options: ShapeOptions): ShapeOptions {
  const o = options as Record<string, unknown>;
  const oneOf = (key: string, forms: readonly string[]) => {
    if (o[key] !== undefined && !forms.includes(o[key] as string))
      throw badRequest(
        `shapes.${key} must be one of ${forms.join(', ')}, got ${JSON.stringify(o[key])}`,
      );
  };
  oneOf('link', LINK_FORMS);
  oneOf('timestamps', TIMESTAMP_FORMS);
  oneOf('statusTypes', STATUS_TYPE_FORMS);
  if (o.uploadField !== undefined && (typeof o.uploadField !== 'string' || o.uploadField === ''))
    throw badRequest('shapes.uploadField must be a non-empty string');
  if (o.webhookSubType !== undefined && typeof o.webhookSubType !== 'boolean')
    throw badRequest('shapes.webhookSubType must be true or false');
  const lists = o.lists;
  if (lists !== undefined) {
    const ok =
      typeof lists === 'object' &&
      lists !== null &&
      !Array.isArray(lists) &&
      Object.values(lists).every((v) => typeof v === 'string');
    if (!ok) throw badRequest('shapes.lists must map list keys to keys (or "" for a bare array)');
  }
  const known = ['lists', 'link', 'timestamps', 'statusTypes', 'uploadField', 'webhookSubType'];
  const unknown = Object.keys(o).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw badRequest(`shapes: no such shape ${unknown.join(', ')}`);
  return { ...options };
}
