/**
 * The contract's response shapes, parsed at the boundary (api.md). Ids arrive as numbers or
 * strings and leave as strings; a change time in any ISO 8601 form leaves as api.md's (UTC, no
 * zone; domain/timestamps.ts, readServiceTimestamp); unknown fields are kept (the service may
 * add some) but a missing or mistyped field we rely on is an ApiError naming the field, never a
 * crash further in. Where a list's items are and how a link comes is read by shapes.ts.
 */
import * as z from 'zod';
import { describeIssues } from '../domain/describe-issues.js';
import { readServiceTimestamp } from '../domain/timestamps.js';
import type {
  AttachmentKind,
  Company,
  DocumentVersion,
  OwnerRef,
  RemoteAttachment,
  RemoteDocument,
  RemoteDocumentSummary,
  RemoteStatus,
  StatusType,
  UnlodgedDocument,
} from '../domain/types.js';
import { ApiError } from './api-error.js';

const id = z
  .union([z.string().min(1), z.number().int()], { error: 'expected an id (string or number)' })
  .transform(String);
const optionalText = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((v) => (v === undefined || v === null ? null : String(v)));
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}/, { error: 'expected a yyyy-MM-dd date' });
const serviceTimestamp = z.string().transform((text, ctx) => {
  const read = readServiceTimestamp(text);
  if (read) return read.text;
  ctx.addIssue({
    code: 'custom',
    message: 'expected an ISO 8601 timestamp yyyy-MM-ddTHH:mm:ss[.ffffff][Z|±hh:mm]',
    input: text,
  });
  return z.NEVER;
});

/** A change time a record may leave out: the client then looks for it elsewhere. */
const changeTime = serviceTimestamp.nullish().transform((v) => v ?? null);

const status = z.looseObject({
  id,
  typeId: id,
  type: z.string(),
  effectiveDate: date,
  createdBy: optionalText,
});

const attachment = z.looseObject({ id, name: z.string().min(1), creationDate: date.nullish() });

const documentItem = z.looseObject({
  id,
  traceNumber: optionalText,
  name: z.string(),
  documentDate: date,
  asicDocNumber: optionalText,
  // Left out by some answers (a company's details in the public pages; a list, maybe): then the
  // details' or the list's is taken (service-client.ts, withChangeTime).
  lastUpdatedTimestamp: changeTime,
  // Every document has a status (RECEIVED by default, api.md); a missing key is a broken answer.
  status: status.nullable(),
});

/**
 * A listed document as the planner reads it. The rest of a listed item is never used there: a
 * changed document's details are read, and checked whole, anyway. Checking every field of every
 * listed item cost more than the rest of planning a quiet listing.
 */
const documentVersion = z.looseObject({ id, lastUpdatedTimestamp: changeTime });

/**
 * A document's details. The public company example has no `lastUpdatedTimestamp` (its list item
 * has one): the client then takes the list's (service-client.ts, withChangeTime).
 */
const documentDetails = documentItem.extend({ attachments: z.array(attachment) });

const nullableText = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

/**
 * An item of the `unlodged` lists (types.ts, UnlodgedDocument). The public pages give its
 * company as an object, api.md's other lists an owner's id: either names the company.
 */
const unlodgedItem = z
  .looseObject({
    id,
    traceNumber: optionalText,
    asicDocNumber: optionalText,
    name: z.string(),
    documentDate: date,
    status: status.nullish(),
    lodgementDetails: z
      .looseObject({
        lodgementDeadlineDate: nullableText,
        preparedBy: nullableText,
        changesSummary: nullableText,
        lodgementURL: nullableText,
        electronic: z
          .boolean()
          .nullish()
          .transform((v) => v ?? null),
      })
      .nullish(),
    company: z.looseObject({ id, name: z.string() }).nullish(),
    companyId: id.nullish(),
  })
  .refine((item) => item.company || item.companyId, {
    error: 'expected a `company` object or a `companyId`, got neither',
    path: ['company'],
  });

const company = z.looseObject({
  id,
  name: z.string(),
  number: optionalText,
  businessNumber: optionalText,
});

/**
 * api.md gives a trust a `name`; the public examples give only `trustNameId`, the contact that
 * names it. Either may be missing here: the client finds the name (service-client.ts).
 */
const trust = z.looseObject({
  id,
  name: z
    .string()
    .nullish()
    .transform((v) => (v?.trim() ? v : null)),
  trustNameId: id.nullish().transform((v) => v ?? null),
  abn: optionalText,
  type: optionalText,
});

const statusType = z.looseObject({ id, name: z.string() });
const statusTypeItems = z.array(statusType);

const anyObject = z.record(z.string(), z.unknown());

/** `F…` is a system attachment; `UA…` or a bare number a user one (api.md). */
export function attachmentKind(attachmentId: string): AttachmentKind {
  return attachmentId.startsWith('F') ? 'system' : 'user';
}

function toStatus(raw: z.output<typeof status> | null | undefined): RemoteStatus | null {
  if (!raw) return null;
  return {
    id: raw.id,
    typeId: raw.typeId,
    type: raw.type,
    effectiveDate: raw.effectiveDate.slice(0, 10),
    createdBy: raw.createdBy,
  };
}

function toAttachment(raw: z.output<typeof attachment>): RemoteAttachment {
  return {
    id: raw.id,
    kind: attachmentKind(raw.id),
    name: raw.name,
    creationDate: raw.creationDate?.slice(0, 10) ?? null,
  };
}

/** A trust as read, before its name is found (service-client.ts). */
export interface TrustRead {
  readonly id: string;
  readonly name: string | null;
  readonly trustNameId: string | null;
  readonly abn: string | null;
  readonly type: string | null;
  readonly raw: Record<string, unknown>;
}

/** A document's details as read: the change time may be missing (documentDetails). */
export type DocumentRead = Omit<RemoteDocument, 'lastUpdatedTimestamp'> & {
  readonly lastUpdatedTimestamp: string | null;
};

/** The fields of a list item or details that a summary takes. */
interface SummaryFields {
  readonly id: string;
  readonly traceNumber: string | null;
  readonly name: string;
  readonly documentDate: string;
  readonly asicDocNumber: string | null;
  readonly lastUpdatedTimestamp: string | null;
  readonly status: z.output<typeof status> | null;
}

function toSummary(raw: SummaryFields, owner: OwnerRef): RemoteDocumentSummary {
  return {
    id: raw.id,
    owner,
    traceNumber: raw.traceNumber,
    name: raw.name,
    documentDate: raw.documentDate.slice(0, 10),
    asicDocNumber: raw.asicDocNumber,
    lastUpdatedTimestamp: raw.lastUpdatedTimestamp,
    status: toStatus(raw.status),
  };
}

/** Parsers from a JSON value to a domain object; each throws ApiError on a mismatch. */
export const parse = {
  documentSummary: (value: unknown, route: string, owner: OwnerRef): RemoteDocumentSummary =>
    toSummary(check(documentItem, value, route), owner),
  documentVersion: (value: unknown, route: string): DocumentVersion => {
    const raw = check(documentVersion, value, route);
    return { id: raw.id, lastUpdatedTimestamp: raw.lastUpdatedTimestamp };
  },
  document: (value: unknown, route: string, owner: OwnerRef): DocumentRead => {
    const raw = check(documentDetails, value, route);
    return { ...toSummary(raw, owner), attachments: raw.attachments.map(toAttachment) };
  },
  unlodged: (value: unknown, route: string): UnlodgedDocument => {
    const raw = check(unlodgedItem, value, route);
    const details = raw.lodgementDetails;
    const companyId = raw.company?.id ?? raw.companyId!;
    return {
      id: raw.id,
      owner: { kind: 'company', id: companyId },
      traceNumber: raw.traceNumber,
      asicDocNumber: raw.asicDocNumber,
      name: raw.name,
      documentDate: raw.documentDate.slice(0, 10),
      status: toStatus(raw.status),
      lodgementDetails: details
        ? {
            lodgementDeadlineDate: details.lodgementDeadlineDate,
            preparedBy: details.preparedBy,
            changesSummary: details.changesSummary,
            lodgementURL: details.lodgementURL,
            electronic: details.electronic,
          }
        : null,
      company: raw.company
        ? (normaliseValue(raw.company) as Record<string, unknown>)
        : { id: companyId },
    };
  },
  status: (value: unknown, route: string): RemoteStatus => toStatus(check(status, value, route))!,
  attachment: (value: unknown, route: string): RemoteAttachment =>
    toAttachment(check(attachment, value, route)),
  company: (value: unknown, route: string): Company => {
    const raw = check(company, value, route);
    return {
      kind: 'company',
      id: raw.id,
      name: raw.name,
      number: raw.number,
      businessNumber: raw.businessNumber,
      raw: value as Record<string, unknown>,
    };
  },
  trust: (value: unknown, route: string): TrustRead => {
    const raw = check(trust, value, route);
    return {
      id: raw.id,
      name: raw.name,
      trustNameId: raw.trustNameId,
      abn: raw.abn,
      type: raw.type,
      raw: value as Record<string, unknown>,
    };
  },
  /**
   * The items of the status types' list (service-shapes.ts finds them in the answer); one
   * without an `id` or a `name` makes the list unreadable, said once for all of them.
   */
  statusTypes: (items: readonly unknown[], route: string): StatusType[] => {
    const read = statusTypeItems.safeParse(items);
    if (read.success) return read.data.map((t) => ({ id: t.id, name: t.name }));
    const first =
      JSON.stringify(items.find((item) => !statusType.safeParse(item).success)) ?? 'another item';
    throw new ApiError(
      'MALFORMED_RESPONSE',
      `${route}: response does not match the contract: expected each status type with an \`id\` and a \`name\`, got ${first.length > 120 ? `${first.slice(0, 120)}…` : first}`,
      { route, responseBody: items },
    );
  },
};

export function check<T extends z.ZodType>(schema: T, value: unknown, route: string): z.output<T> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const problems = describeIssues(result.error.issues)
    .map((p) => `${p.key || '(body)'}: ${p.message}`)
    .join('; ');
  throw new ApiError(
    'MALFORMED_RESPONSE',
    `${route}: response does not match the contract: ${problems}`,
    {
      route,
      responseBody: value,
    },
  );
}

/**
 * For the records docsync only passes through (contacts, relationships, unit transactions,
 * pension summaries): must be an object, and every `id`/`…Id` field becomes a string, every
 * `…Ids` list a list of strings, at any depth.
 */
export function normaliseIds(value: unknown, route: string): Record<string, unknown> {
  const object = check(anyObject, value, route);
  return normaliseValue(object) as Record<string, unknown>;
}

function normaliseValue(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => normaliseValue(item, key.endsWith('Ids') ? 'id' : ''));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normaliseValue(v, k)]));
  }
  const isId = key === 'id' || /Id$/.test(key);
  return isId && typeof value === 'number' ? String(value) : value;
}
