import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { Company, DocumentMeta, Trust } from '../../src/domain/types.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import type { LocalStore } from '../../src/local/local-store.js';

/** A store plus the hands of a person working in its folder. */
export interface Harness {
  readonly store: LocalStore;
  /** The folder's absolute path. */
  readonly root: string;
  write(relPath: string, data: string | Uint8Array, mtimeMs?: number): void;
  mkdir(relPath: string): void;
  rename(from: string, to: string): void;
  remove(relPath: string): void;
  read(relPath: string): Buffer | null;
  exists(relPath: string): boolean;
  list(relPath: string): string[];
}

export interface HarnessOptions {
  readonly now?: () => Date;
  readonly ignore?: readonly string[];
}

export function fsHarness(root: string, options: HarnessOptions = {}): Harness {
  const store = new FsLocalStore({ root, settleSeconds: 0, ...options });
  const abs = (rel: string) => path.join(root, ...rel.split('/'));
  return {
    store,
    root,
    write(rel, data, mtimeMs) {
      mkdirSync(path.dirname(abs(rel)), { recursive: true });
      writeFileSync(abs(rel), data);
      if (mtimeMs !== undefined) utimesSync(abs(rel), mtimeMs / 1000, mtimeMs / 1000);
    },
    mkdir: (rel) => mkdirSync(abs(rel), { recursive: true }),
    rename: (from, to) => renameSync(abs(from), abs(to)),
    remove: (rel) => rmSync(abs(rel), { recursive: true, force: true }),
    read: (rel) => (existsSync(abs(rel)) ? readFileSync(abs(rel)) : null),
    exists: (rel) => existsSync(abs(rel)),
    list: (rel) => (existsSync(abs(rel)) ? readdirSync(abs(rel)).sort() : []),
  };
}

export const acme: Company = {
  kind: 'company',
  id: 'c0ffee-1',
  name: 'Acme Pty Ltd',
  number: '123456789',
  businessNumber: null,
  raw: { id: 'c0ffee-1', name: 'Acme Pty Ltd', number: '123456789' },
};

export const smithTrust: Trust = {
  kind: 'trust',
  id: '20053',
  name: 'Smith Family Trust',
  abn: null,
  type: 'DISCRETIONARY',
  raw: { id: 20053, name: 'Smith Family Trust' },
};

export function documentMeta(overrides: Partial<DocumentMeta> = {}): DocumentMeta {
  return {
    id: '1075468',
    owner: { kind: 'company', id: acme.id },
    name: 'Trustee Minutes',
    documentDate: '2020-07-03',
    traceNumber: '103',
    asicDocNumber: null,
    status: 'DOCUMENT PREPARED',
    statusDate: '2020-07-03',
    lastUpdatedTimestamp: '2020-07-03T04:31:46.108264',
    attachments: [],
    link: 'https://app.example/s/html/main.html#/company/documents?cid=c0ffee-1',
    ...overrides,
  };
}

/** A document folder with only its `.document.json`, as a pull of a document without files. */
export async function createDocumentFolder(
  store: LocalStore,
  entityFolder: string,
  meta: DocumentMeta,
): Promise<string> {
  return (await store.createDocumentFolderWithFiles(entityFolder, meta, [], () => meta)).folder;
}
