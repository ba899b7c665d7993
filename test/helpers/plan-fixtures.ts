/**
 * Small builders for planner tests: one trust, one document with a user and a system
 * attachment, and the three views of it (base, folder, service) that tests then change.
 */
import type { PlanInput, PlanPolicy } from '../../src/domain/plan-sync.js';
import type { SyncPlan } from '../../src/domain/sync-actions.js';
import type {
  BaseDocument,
  LocalDocumentSnapshot,
  LocalFile,
  OwnerRef,
  RemoteDocument,
  StatusType,
} from '../../src/domain/types.js';

export const owner: OwnerRef = { kind: 'trust', id: '20053' };
export const NOW = Date.UTC(2020, 6, 10, 12, 0, 0);
/** Service time one hour before NOW, and local mtimes either side of it. */
export const REMOTE_TS = '2020-07-10T11:00:00';
export const OLDER_MS = Date.UTC(2020, 6, 10, 10, 0, 0);
export const NEWER_MS = Date.UTC(2020, 6, 10, 11, 30, 0);

export const statusTypes: StatusType[] = [
  { id: '2', name: 'DOCUMENT PREPARED' },
  { id: '3', name: 'SENT TO CLIENT' },
  { id: '20', name: 'CANCELLED' },
];

export const policy: PlanPolicy = {
  onRemoteDelete: 'trash',
  pullOnly: false,
  adoptLocal: false,
  clockOffsetMs: 0,
};

const ENTITY = 'Trusts/Smith Family Trust';

export function baseDoc(id = '1075468', overrides: Partial<BaseDocument> = {}): BaseDocument {
  return {
    id,
    owner,
    name: 'Trustee Minutes',
    documentDate: '2020-07-03',
    statusId: 's1',
    statusTypeId: '2',
    statusDate: '2020-07-03',
    lastUpdatedTimestamp: '2020-07-03T04:31:46',
    folder: `${ENTITY}/2020-07-03 Trustee Minutes [${id}]`,
    attachments: [
      { id: `UA${id}`, kind: 'user', file: 'minutes.pdf', sha256: 'u1', size: 10, mtimeMs: 1 },
      {
        id: `F${id}`,
        kind: 'system',
        file: 'Trustee Minutes.pdf',
        sha256: 's1',
        size: 20,
        mtimeMs: 1,
      },
    ],
    ...overrides,
  };
}

export function file(name: string, sha256: string, mtimeMs = OLDER_MS): LocalFile {
  return { name, sha256, size: 1, mtimeMs };
}

/** The folder exactly as the base left it. */
export function folderOf(
  doc: BaseDocument,
  overrides: Partial<LocalDocumentSnapshot> = {},
): LocalDocumentSnapshot {
  const statusName = statusTypes.find((t) => t.id === doc.statusTypeId)?.name ?? null;
  return {
    folder: doc.folder,
    meta: {
      id: doc.id,
      owner: doc.owner,
      name: doc.name,
      documentDate: doc.documentDate,
      traceNumber: null,
      asicDocNumber: null,
      status: statusName,
      statusDate: doc.statusDate,
      lastUpdatedTimestamp: doc.lastUpdatedTimestamp,
      attachments: doc.attachments.map((a) => ({
        id: a.id,
        kind: a.kind,
        file: a.file,
        creationDate: null,
        sha256: a.sha256,
      })),
      link: 'https://app.example.com',
    },
    metaMtimeMs: OLDER_MS,
    files: doc.attachments.map((a) => ({
      name: a.file,
      size: a.size,
      mtimeMs: a.mtimeMs,
      sha256: a.sha256,
    })),
    ...overrides,
  };
}

/** The service's details exactly as the base left them, at a later timestamp. */
export function remoteOf(
  doc: BaseDocument,
  overrides: Partial<RemoteDocument> = {},
): RemoteDocument {
  const type = statusTypes.find((t) => t.id === doc.statusTypeId);
  return {
    id: doc.id,
    owner: doc.owner,
    traceNumber: '103',
    name: doc.name,
    documentDate: doc.documentDate,
    asicDocNumber: null,
    lastUpdatedTimestamp: REMOTE_TS,
    status:
      doc.statusId === null || type === undefined
        ? null
        : {
            id: doc.statusId,
            typeId: type.id,
            type: type.name,
            effectiveDate: doc.statusDate ?? '',
            createdBy: null,
          },
    attachments: doc.attachments.map((a) => ({
      id: a.id,
      kind: a.kind,
      name: a.file,
      creationDate: '2020-07-03',
    })),
    ...overrides,
  };
}

export interface Sides {
  base?: BaseDocument[];
  folders?: LocalDocumentSnapshot[];
  changed?: RemoteDocument[];
  listedIds?: string[] | null;
  deletedIds?: string[];
  /** The entity folder as scanned; null when it is missing (row 50). */
  entityFolder?: string | null;
  /** Base documents found elsewhere in the store, and unreadable `.document.json` folders. */
  elsewhere?: { found?: [string, string][]; unreadable?: string[] };
  /** Documents docsync deleted in the service, whose folders the entity holds (row 19). */
  deletedInService?: string[];
  /** The service's status types were never read: only the documents' are known (row 55). */
  statusPushesWait?: boolean;
  pullsInDoubt?: number;
  /** Listed as changed, their details not read (row 56). */
  unreadIds?: string[];
}

export function input(sides: Sides): PlanInput {
  const folder = sides.entityFolder === undefined ? ENTITY : sides.entityFolder;
  return {
    owner,
    base: new Map((sides.base ?? []).map((d) => [d.id, d])),
    local: { owner, folder, documents: sides.folders ?? [], skipped: [], unsettled: 0 },
    knownFolder: ENTITY,
    ...(sides.elsewhere
      ? {
          elsewhere: {
            found: new Map(sides.elsewhere.found ?? []),
            unreadable: sides.elsewhere.unreadable ?? [],
          },
        }
      : {}),
    ...(sides.deletedInService ? { deletedInService: new Set(sides.deletedInService) } : {}),
    remote: {
      changed: sides.changed ?? [],
      listedIds: sides.listedIds ? new Set(sides.listedIds) : null,
      ...(sides.deletedIds ? { deletedIds: new Set(sides.deletedIds) } : {}),
      ...(sides.unreadIds ? { unreadIds: new Set(sides.unreadIds) } : {}),
    },
    statusTypes,
    ...(sides.statusPushesWait ? { statusPushesWait: true } : {}),
    ...(sides.pullsInDoubt ? { pullsInDoubt: sides.pullsInDoubt } : {}),
  };
}

/** `kind:row` of every action, the compact form the table test compares. */
export function kindsAndRows(plan: SyncPlan): string[] {
  return plan.actions.map((a) => `${a.kind}:${a.row}`);
}

export const entityFolder = ENTITY;
