/**
 * The arguments of `docsync api` that need more than a string: owners, status types by id or
 * name, and local files, which are checked before any request is sent.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { DocsyncError } from '../domain/errors.js';
import { statusTypeNamed } from '../domain/local-changes.js';
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

export const owner = (kind: string, id: string): OwnerRef => {
  if (kind !== 'company' && kind !== 'trust')
    throw usageError(`expected company or trust, got "${kind}"`);
  return { kind: kind as OwnerKind, id };
};

export const jsonFile = async (call: ApiCall): Promise<Record<string, unknown>> => {
  if (!call.file) throw usageError('this operation needs --file <json>');
  const text = await readFile(call.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw usageError(`cannot read --file ${call.file}: ${reason(error)}; nothing was sent`);
  });
  try {
    const body: unknown = JSON.parse(text);
    if (body !== null && typeof body === 'object' && !Array.isArray(body))
      return body as Record<string, unknown>;
  } catch {
    // Said below, with the file's name.
  }
  throw usageError(`--file ${call.file} must hold one JSON object; nothing was sent`);
};

/** The file to upload exists and is a file. */
export const readableFile = async (file: string): Promise<void> => {
  const found = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw usageError(`cannot upload ${file}: ${reason(error)}; nothing was sent`);
  });
  if (!found.isFile()) throw usageError(`cannot upload ${file}: not a file; nothing was sent`);
};

/** The folder a download goes to exists. */
export const writableFolder = async (dest: string): Promise<void> => {
  const folder = path.dirname(path.resolve(dest));
  const found = await stat(folder).catch(() => null);
  if (!found?.isDirectory())
    throw usageError(`cannot download to ${dest}: the folder ${folder} does not exist`);
};

function reason(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such file';
  if (error.code === 'EACCES') return 'permission denied';
  if (error.code === 'EISDIR') return 'it is a folder';
  return error.message;
}

/**
 * A status type given by id or by name (any letter case), as `docsync status` and the
 * `.document.json` files show them: a name is looked up in the service's status types.
 */
export async function statusTypeId(client: ServiceClient, idOrName: string): Promise<string> {
  if (/^\d+$/.test(idOrName.trim())) return idOrName.trim();
  const types = await client.statusTypes();
  const found = statusTypeNamed(idOrName, types);
  if (!found)
    throw usageError(
      `no status type "${idOrName}"; one of: ${types.map((t) => t.name).join(', ')}`,
    );
  return found.id;
}

export function usageError(message: string): DocsyncError {
  return new DocsyncError('USAGE', message);
}
