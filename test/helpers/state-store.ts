import path from 'node:path';
import { afterEach } from 'vitest';
import type { BaseDocument, OwnerRef } from '../../src/domain/types.js';
import { StateStore } from '../../src/state/state-store.js';
import { useTempDir } from './temp-dir.js';

/** A fresh state store on a real SQLite file per test, closed afterwards. */
export function useStateStore(): { open: () => StateStore; file: () => string } {
  const tempDir = useTempDir('docsync-state-');
  const opened: StateStore[] = [];
  let current: string | undefined;
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
    current = undefined;
  });
  const file = () => {
    current ??= path.join(tempDir(), 'docsync.db');
    return current;
  };
  return {
    file,
    /** Opens (or reopens) this test's database. */
    open: () => {
      const store = StateStore.open(file());
      opened.push(store);
      return store;
    },
  };
}

export const TRUST: OwnerRef = { kind: 'trust', id: '20053' };
export const COMPANY: OwnerRef = { kind: 'company', id: 'c0ffee-0001' };

export function baseDocument(overrides: Partial<BaseDocument> = {}): BaseDocument {
  return {
    id: '1075468',
    owner: TRUST,
    name: 'Trustee Minutes or Resolutions',
    documentDate: '2020-07-03',
    statusId: '77',
    statusTypeId: '2',
    statusDate: '2020-07-03',
    lastUpdatedTimestamp: '2020-07-03T04:31:46.108264',
    folder: 'Trusts/Smith Family Trust (12 345 678 901)/2020-07-03 Trustee Minutes [1075468]',
    attachments: [
      {
        id: 'F933170',
        kind: 'system',
        file: 'Trustee Minutes or Resolutions.pdf',
        sha256: 'a'.repeat(64),
        size: 48_213,
        mtimeMs: 1_593_750_706_000,
      },
      {
        id: 'UA12',
        kind: 'user',
        file: 'signed.pdf',
        sha256: 'b'.repeat(64),
        size: 1024,
        mtimeMs: 1_593_750_800_000,
      },
    ],
    ...overrides,
  };
}
