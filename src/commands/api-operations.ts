/**
 * `docsync api <resource> <operation> [args...]`: every operation of the contract from the
 * shell. One table row per operation, with the arguments it takes, so `--help` and the usage
 * error are generated from the same place as the dispatch.
 */
import path from 'node:path';
import { namedUploadSource } from '../local/upload-file.js';
import type { ServiceClient } from '../remote/service-client.js';
import {
  type ApiCall,
  jsonFile,
  owner,
  readableFile,
  statusTypeId,
  usageError,
  writableFolder,
} from './api-arguments.js';

export type { ApiCall } from './api-arguments.js';

type Result = Promise<unknown> | AsyncIterable<unknown>;

interface Operation {
  readonly usage: string;
  /**
   * Checks the local files the operation reads or writes, before any request: a missing file
   * is the user's to fix, and must not look like a request that may or may not have been sent.
   */
  readonly check?: (call: ApiCall, a: string[]) => Promise<void>;
  /** Which arguments name a local file: relative to where the command was started. */
  readonly paths?: readonly number[];
  readonly run: (client: ServiceClient, call: ApiCall, a: string[]) => Result;
}

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
      check: async (call) => void (await jsonFile(call)),
      run: async (c, call, [k, id]) => {
        const body = await jsonFile(call);
        // `status.typeId` as the API has it; a status name is taken there too, or as `status.type`.
        const status = body.status as { typeId?: unknown; type?: unknown } | undefined;
        const statusGiven = status?.typeId ?? status?.type;
        return c.createDocument(owner(k!, id!), {
          name: String(body.name),
          documentDate: String(body.documentDate),
          asicDocNumber: (body.asicDocNumber as string | undefined) ?? null,
          ...(statusGiven !== undefined
            ? { statusTypeId: await statusTypeId(c, String(statusGiven)) }
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
      usage: '<company|trust> <ownerId> <documentId> <typeIdOrName> [effectiveDate]',
      run: async (c, _call, [k, id, doc, type, date]) =>
        c.assignStatus(
          owner(k!, id!),
          doc!,
          await statusTypeId(c, type!),
          date ?? new Date().toISOString().slice(0, 10),
        ),
    },
    unlodged: { usage: '[companyId]', run: (c, _call, [id]) => c.unlodged(id) },
  },
  attachments: {
    upload: {
      usage: '<company|trust> <ownerId> <documentId> <file>',
      paths: [3],
      check: (_call, [, , , file]) => readableFile(file!),
      run: (c, _call, [k, id, doc, file]) =>
        c.uploadAttachment(owner(k!, id!), doc!, namedUploadSource(file!), path.basename(file!)),
    },
    download: {
      usage: '<company|trust> <ownerId> <documentId> <attachmentId> <destFile>',
      paths: [4],
      check: (_call, [, , , , dest]) => writableFolder(dest!),
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
      check: async (call) => void (await jsonFile(call)),
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

/** The options of `docsync api`, by the name commander gives them. */
const OPTION_FLAGS: Readonly<Record<keyof Omit<ApiCall, 'args'>, string>> = {
  details: '--details',
  file: '--file',
  year: '--year',
  updatedAfter: '--updated-after',
  includeHistory: '--include-history',
};

/**
 * Finds the operation and checks its arguments: as many as its usage names, and only the
 * options it takes (an id too many or a `--details` it ignores is a mistake to say, not to
 * skip). `pension-summary <fundId>` reads as `get`.
 */
export function resolveOperation(
  resource: string,
  operation: string,
  args: readonly string[],
  call: Omit<ApiCall, 'args'> = {},
) {
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
  const usage = `usage: docsync api ${resource} ${name} ${op.usage}`.trimEnd();
  // The options it takes, with their values (`[--updated-after <time>]`), then the positionals:
  // <…> required, […] optional.
  const flags = new Set(op.usage.match(/--[\w-]+/g) ?? []);
  const positional = op.usage
    .replace(/\[?--[\w-]+( <[^>]+>)?\]?/g, '')
    .split(' ')
    .filter((t) => t !== '');
  const needed = positional.filter((t) => t.startsWith('<')).length;
  if (rest.length < needed) throw usageError(usage);
  const extra = rest.slice(positional.length);
  if (extra.length > 0)
    throw usageError(
      `unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((a) => JSON.stringify(a)).join(' ')}; ${usage}`,
    );
  for (const [key, flag] of Object.entries(OPTION_FLAGS)) {
    const given = call[key as keyof typeof OPTION_FLAGS];
    if (given !== undefined && given !== false && !flags.has(flag))
      throw usageError(`${resource} ${name} takes no ${flag}; ${usage}`);
  }
  return { op, args: rest };
}

/** The arguments and `--file` with every local path made absolute from `cwd`. */
export function withPathsFrom<C extends Omit<ApiCall, 'args'>>(
  cwd: string,
  op: Operation,
  call: C,
  args: readonly string[],
): { call: C; args: string[] } {
  const paths = new Set(op.paths ?? []);
  return {
    call: call.file === undefined ? call : { ...call, file: path.resolve(cwd, call.file) },
    args: args.map((arg, i) => (paths.has(i) ? path.resolve(cwd, arg) : arg)),
  };
}

export function usageText(): string {
  return Object.entries(API_OPERATIONS)
    .flatMap(([resource, ops]) =>
      Object.entries(ops).map(([name, op]) => `  ${resource} ${name} ${op.usage}`.trimEnd()),
    )
    .join('\n');
}
