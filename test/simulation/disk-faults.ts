/**
 * The folder's disk failing under the daemon (docs/simulation.md, "What a seed may do"): the
 * LocalStore port's wrapper (port-wrappers.ts) runs each folder call through `call`, which fails
 * a share of them as the fault that is on says, until a seed heals it: permission refused
 * (EACCES), the disk full (ENOSPC), an I/O error (EIO, sometimes after the call did its work: the
 * rename was made, the flush after it failed), or a file a person has open and locked (EBUSY, a
 * sharing violation: renaming, replacing or trashing it, or trashing its folder, fails). The
 * disk is the machine's, not the process's: a fault outlives a crash. Every draw comes from the
 * seed's generator, in the order of the calls (one at a time: port-turns.ts).
 */
import { constants } from 'node:os';
import path from 'node:path';
import type { Random } from '../../src/simulator/random.js';

type Code = 'EACCES' | 'ENOSPC' | 'EIO' | 'EBUSY';

/** What a folder call does to the disk. */
type Area = 'read' | 'write' | 'folder made' | 'rename' | 'trash move';

/** The port's calls by what they do (local/local-store.ts); the others are never failed. */
const AREAS: Readonly<Record<string, Area>> = {
  hasMarker: 'read',
  markerService: 'read',
  listEntityFolders: 'read',
  skippedEntityFolders: 'read',
  entityFolderPaths: 'read',
  scanEntity: 'read',
  locateDocuments: 'read',
  readDocumentMeta: 'read',
  lookAt: 'read',
  identityOf: 'read',
  findByIdentity: 'read',
  writeMarker: 'write',
  placeFile: 'write',
  writeDocumentMeta: 'write',
  restoreSystemAttachment: 'write',
  saveToTrash: 'write',
  withScratchFile: 'write',
  ensureEntityFolder: 'folder made',
  createDocumentFolderWithFiles: 'folder made',
  renameFile: 'rename',
  trash: 'trash move',
  deletePermanently: 'trash move',
};

const SYSCALL: Readonly<Record<Area, string>> = {
  read: 'scandir',
  write: 'open',
  'folder made': 'mkdir',
  rename: 'rename',
  'trash move': 'rename',
};

const MESSAGE: Readonly<Record<Code, string>> = {
  EACCES: 'permission denied',
  ENOSPC: 'no space left on device',
  EIO: 'i/o error',
  EBUSY: 'resource busy or locked',
};

export interface DiskFault {
  readonly code: Code;
  readonly areas: ReadonlySet<Area>;
  /** The share of those calls that fail. */
  readonly share: number;
  /** Of the failures of a call that changes the folder, the share that come after its work. */
  readonly after?: number;
  /** A file a person holds open (EBUSY): only calls that would move or replace it fail. */
  readonly locked?: string;
}

const ALL: ReadonlySet<Area> = new Set(['read', 'write', 'folder made', 'rename', 'trash move']);
const CHANGES: ReadonlySet<Area> = new Set(['write', 'folder made', 'rename', 'trash move']);

/** The disk faults a seed may turn on; `locked` is filled in with a file of the folder. */
export const DISK_FAULTS: readonly (readonly [string, DiskFault | null])[] = [
  ['healed', null],
  ['EACCES on 30 % of folder calls', { code: 'EACCES', areas: ALL, share: 0.3 }],
  ['the folder read-only (EACCES on every change)', { code: 'EACCES', areas: CHANGES, share: 1 }],
  [
    'the disk full (ENOSPC on half the writes)',
    { code: 'ENOSPC', areas: new Set(['write', 'folder made']), share: 0.5 },
  ],
  [
    'EIO on 20 % of folder calls, half after the change',
    { code: 'EIO', areas: ALL, share: 0.2, after: 0.5 },
  ],
  [
    'the flush after a change fails (EIO after 30 % of changes)',
    { code: 'EIO', areas: CHANGES, share: 0.3, after: 1 },
  ],
  ['a file locked (EBUSY)', { code: 'EBUSY', areas: CHANGES, share: 1, locked: '' }],
];

export class DiskFaults {
  #fault: DiskFault | null = null;

  constructor(
    private readonly random: Random,
    /** Counts a failed call by what it did (the run's injected tally). */
    private readonly count: (kind: string) => void,
    private readonly note: (line: string) => void,
    /** A call did its work and is about to fail all the same (the flush after it). */
    private readonly workDone?: (method: string, args: readonly unknown[]) => void,
  ) {}

  get on(): boolean {
    return this.#fault !== null;
  }

  set(fault: DiskFault | null): void {
    this.#fault = fault;
  }

  /** Runs the folder call `method(args)`, or fails it as the fault says. */
  async call<T>(method: string, args: readonly unknown[], run: () => Promise<T>): Promise<T> {
    const fault = this.#fault;
    const area = AREAS[method];
    if (!fault || area === undefined || !fault.areas.has(area)) return run();
    const target = typeof args[0] === 'string' ? args[0] : '';
    if (fault.locked !== undefined && !touches(method, args, fault.locked)) return run();
    if (fault.share < 1 && this.random() >= fault.share) return run();
    const after = area !== 'read' && fault.after !== undefined && this.random() < fault.after;
    const error = errnoError(fault.code, SYSCALL[area], target || method);
    this.count(`disk failed: ${area}${after ? ' (after the change)' : ''}`);
    this.note(`  disk: ${fault.code} on ${method} ${target}${after ? ' (after the change)' : ''}`);
    if (!after) throw error;
    await run();
    this.workDone?.(method, args);
    throw error;
  }
}

/**
 * Whether the call moves or replaces the locked file: renaming or trashing it, trashing its
 * folder, or putting a system attachment back over it.
 */
function touches(method: string, args: readonly unknown[], locked: string): boolean {
  const [first, second] = args;
  if (typeof first !== 'string') return false;
  switch (method) {
    case 'renameFile':
      return first === locked;
    case 'trash':
    case 'deletePermanently':
      return first === locked || first === path.posix.dirname(locked);
    case 'restoreSystemAttachment':
      return `${first}/${String(second)}` === locked;
    default:
      return false;
  }
}

/** The errors the disk faults made. */
const MADE = new WeakSet<object>();

/** Whether the error, or one it was caused by, is a fault of the disk made here. */
export function isDiskFault(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) if (MADE.has(e)) return true;
  return false;
}

function errnoError(code: Code, syscall: string, target: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    `${code}: ${MESSAGE[code]}, ${syscall} '${target}'`,
  );
  error.code = code;
  error.errno = -constants.errno[code];
  error.syscall = syscall;
  error.path = target;
  MADE.add(error);
  return error;
}
