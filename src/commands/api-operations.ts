/**
 * `docsync api <resource> <operation> [args...]`: every operation of the contract from the
 * shell. One table row per operation, with the arguments it takes, so `--help` and the usage
 * error are generated from the same place as the dispatch.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DocsyncError } from '../domain/errors.js';
import type { OwnerKind, OwnerRef } from '../domain/types.js';
import type { ServiceClient } from '../remote/service-client.js';

export interface ApiCall {
  readonly args: readonly string[];
  readonly details?: boolean | undefined;
  readonly file?: string | undefined;
  readonly year?: string | undefined;
  readonly updatedAfter?: string | undefined;
  readonly includeHistory?: boolean | undefined;
}

type Result = Promise<unknown> | AsyncIterable<unknown>;

interface Operation {
  readonly usage: string;
  readonly run: (client: ServiceClient, call: ApiCall, a: string[]) => Result;
}

const owner = (kind: string, id: string): OwnerRef => {
  if (kind !== 'company' && kind !== 'trust')
    throw usageError(`expected company or trust, got "${kind}"`);
  return { kind: kind as OwnerKind, id };
};

const jsonFile = async (call: ApiCall): Promise<Record<string, unknown>> => {
  if (!call.file) throw usageError('this operation needs --file <json>');
  return JSON.parse(await readFile(call.file, 'utf8')) as Record<string, unknown>;
};

export const API_OPERATIONS: Record<string, Record<string, Operation>> = {
  companies: {
    list: {
      usage: '[--details]',
      run: (c, call) => c.companies({ details: call.details ?? false }),
    },
    get: { usage: '<companyId>', run: (c, _call, [id]) => c.company(id!) },
    'by-label': {
      usage: '<labelId> [--details]',
      run: (c, call, [id]) => c.companiesByLabel(id!, { details: call.details ?? false }),
    },
  },
  trusts: {
    list: { usage: '', run: (c) => c.trusts() },
    get: { usage: '<trustId>', run: (c, _call, [id]) => c.trust(id!) },
  },
  relationships: {
    list: {
      usage: '<trustId> [--include-history]',
      run: (c, call, [id]) =>
        c.trustRelationships(id!, { includeHistory: call.includeHistory ?? false }),
    },
  },
  'status-types': { list: { usage: '', run: (c) => c.statusTypes() } },
  documents: {
    list: {
      usage: '<company|trust> <ownerId> [--updated-after <time>]',
      run: (c, call, [k, id]) =>
        c.documents(owner(k!, id!), call.updatedAfter ? { updatedAfter: call.updatedAfter } : {}),
    },
    get: {
      usage: '<company|trust> <ownerId> <documentId>',
      run: (c, _call, [k, id, doc]) => c.document(owner(k!, id!), doc!),
    },
    create: {
      usage: '<company|trust> <ownerId> --file <document.json>',
      run: async (c, call, [k, id]) => {
        const body = await jsonFile(call);
        return c.createDocument(owner(k!, id!), {
          name: String(body.name),
          documentDate: String(body.documentDate),
          asicDocNumber: (body.asicDocNumber as string | undefined) ?? null,
          ...((body.status as { typeId?: unknown } | undefined)?.typeId !== undefined
            ? { statusTypeId: String((body.status as { typeId: unknown }).typeId) }
            : {}),
        });
      },
    },
    delete: {
      usage: '<company|trust> <ownerId> <documentId>',
      run: async (c, _call, [k, id, doc]) => {
        await c.deleteDocument(owner(k!, id!), doc!);
        return { deleted: doc };
      },
    },
    'assign-status': {
      usage: '<company|trust> <ownerId> <documentId> <typeId> [effectiveDate]',
      run: (c, _call, [k, id, doc, typeId, date]) =>
        c.assignStatus(
          owner(k!, id!),
          doc!,
          typeId!,
          date ?? new Date().toISOString().slice(0, 10),
        ),
    },
    unlodged: { usage: '[companyId]', run: (c, _call, [id]) => c.unlodged(id) },
  },
  attachments: {
    upload: {
      usage: '<company|trust> <ownerId> <documentId> <file>',
      run: (c, _call, [k, id, doc, file]) =>
        c.uploadAttachment(owner(k!, id!), doc!, file!, path.basename(file!)),
    },
    download: {
      usage: '<company|trust> <ownerId> <documentId> <attachmentId> <destFile>',
      run: (c, _call, [k, id, doc, att, dest]) =>
        c.downloadAttachment(owner(k!, id!), doc!, att!, dest!),
    },
    delete: {
      usage: '<company|trust> <ownerId> <documentId> <attachmentId>',
      run: async (c, _call, [k, id, doc, att]) => {
        await c.deleteAttachment(owner(k!, id!), doc!, att!);
        return { deleted: att };
      },
    },
  },
  contacts: {
    list: {
      usage: '[--details]',
      run: (c, call) => c.contacts({ details: call.details ?? false }),
    },
    get: {
      usage: '<contactId> [--details]',
      run: (c, call, [id]) => c.contact(id!, { details: call.details ?? false }),
    },
  },
  'unit-transactions': {
    list: { usage: '<trustId>', run: (c, _call, [id]) => c.unitTransactions(id!) },
    create: {
      usage: '<trustId> --file <transaction.json>',
      run: async (c, call, [id]) => c.createUnitTransaction(id!, await jsonFile(call)),
    },
    delete: {
      usage: '<trustId> <transactionId>',
      run: async (c, _call, [id, tx]) => {
        await c.deleteUnitTransaction(id!, tx!);
        return { deleted: tx };
      },
    },
  },
  'pension-summary': {
    get: {
      usage: '<fundId> --year <yyyy>',
      run: (c, call, [id]) => {
        if (!call.year || !/^\d{4}$/.test(call.year))
          throw usageError('pension-summary needs --year <yyyy>');
        return c.pensionSummary(id!, Number(call.year));
      },
    },
  },
};

/** Finds the operation and checks its argument count; `pension-summary <fundId>` reads as `get`. */
export function resolveOperation(resource: string, operation: string, args: readonly string[]) {
  const ops = API_OPERATIONS[resource];
  if (!ops)
    throw usageError(
      `unknown resource "${resource}"; one of: ${Object.keys(API_OPERATIONS).join(', ')}`,
    );
  const [name, rest] = ops[operation]
    ? [operation, [...args]]
    : resource === 'pension-summary'
      ? ['get', [operation, ...args]]
      : [operation, [...args]];
  const op = ops[name];
  if (!op)
    throw usageError(
      `unknown operation "${resource} ${operation}"; one of: ${Object.keys(ops).join(', ')}`,
    );
  const tokens = op.usage.split(' ');
  // Required positionals are the <…> tokens that are not the value of a --flag.
  const needed = tokens.filter(
    (t, i) => /^<.+>$/.test(t) && !tokens[i - 1]?.startsWith('-'),
  ).length;
  if (rest.length < needed) throw usageError(`usage: docsync api ${resource} ${name} ${op.usage}`);
  return { op, args: rest };
}

export function usageText(): string {
  return Object.entries(API_OPERATIONS)
    .flatMap(([resource, ops]) =>
      Object.entries(ops).map(([name, op]) => `  ${resource} ${name} ${op.usage}`.trimEnd()),
    )
    .join('\n');
}

function usageError(message: string): DocsyncError {
  return new DocsyncError('USAGE', message);
}
