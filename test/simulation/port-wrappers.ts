/**
 * The daemon's two ports as the simulation hands them in: the real adapters (the HTTP client
 * against the simulator, the folder on disk), each call counted as in flight (park-board.ts), so
 * the harness knows when nothing runs. The service's answers may be held back (a late answer,
 * which reorders them), and every write docsync sends to the service is shown to the harness
 * before it goes (a delete must have its copy in the trash already) and after its answer. After
 * a crash the wrappers of that life refuse every call, so nothing the dead daemon still unwinds
 * reaches the folder or the service. A folder call that takes something away is shown to the
 * harness before it runs and after (its trash copy: trash-watch.ts). A write whose answer the
 * service lost after carrying it out is shown as carried out (the harness asks the simulator),
 * though docsync saw a failure.
 *
 * `servedPauses` is the client's clock in the simulation: a 429's pause ends at once.
 */
import { type Clock, REAL_CLOCK } from '../../src/domain/clock.js';
import type {
  OwnerRef,
  RemoteAttachment,
  RemoteDocument,
  RemoteStatus,
} from '../../src/domain/types.js';
import type { UploadSource } from '../../src/domain/upload-source.js';
import type { LocalStore } from '../../src/local/local-store.js';
import type {
  DocumentListEntry,
  DocumentVersionEntry,
  NewDocument,
  RemoteStore,
} from '../../src/remote/remote-store.js';
import type { ResponseInfo } from '../../src/remote/service-http.js';
import type { ParkBoard } from './park-board.js';

/** A write docsync sends to the service, as the harness's ledger records it. */
export type ServiceWrite =
  | { readonly kind: 'create-document'; readonly owner: OwnerRef; readonly name: string }
  | { readonly kind: 'delete-document'; readonly owner: OwnerRef; readonly documentId: string }
  | {
      readonly kind: 'assign-status';
      readonly owner: OwnerRef;
      readonly documentId: string;
      readonly typeId: string;
    }
  | {
      readonly kind: 'upload-attachment';
      readonly owner: OwnerRef;
      readonly documentId: string;
      readonly fileName: string;
      readonly filePath: string;
      /** What was sent, once the upload returned. */
      readonly sha256?: string | null;
    }
  | {
      readonly kind: 'delete-attachment';
      readonly owner: OwnerRef;
      readonly documentId: string;
      readonly attachmentId: string;
    };

export interface PortHooks {
  /** Throws once the life is over (a crash). */
  alive(): void;
  /** Whether to hold back this answer of the service; asked only of calls nothing encloses. */
  holdAnswer(label: string): boolean;
  /** Parks the chain that waits for a held answer. */
  parkAnswer(label: string): Promise<void>;
  beforeWrite(write: ServiceWrite): Promise<void>;
  /** `answerLost`: the service carried the write out, then lost its answer (a failure here). */
  afterWrite(write: ServiceWrite, result: unknown, answerLost: boolean): void;
  /**
   * Before a folder call: what to look at once it returned (a removal's trash copy), or null.
   * Asked before the call starts, so it sees the folder as the call found it.
   */
  localCall(method: string, args: readonly unknown[]): ((result: unknown) => void) | null;
  /** Writes the service carried out and lost the answer of, so far. */
  answersLost(): number;
  /** Runs a folder call in its turn, or fails it as the disk's fault says (disk-faults.ts). */
  diskCall<T>(method: string, args: readonly unknown[], call: () => Promise<T>): Promise<T>;
}

const key = (owner: OwnerRef) => `${owner.kind}:${owner.id}`;

export class TrackedRemote implements RemoteStore {
  constructor(
    private readonly remote: RemoteStore,
    private readonly board: ParkBoard,
    private readonly hooks: PortHooks,
  ) {}

  companies(options?: { details?: boolean }) {
    return this.#iterate('companies', () => this.remote.companies(options));
  }

  trusts() {
    return this.#iterate('trusts', () => this.remote.trusts());
  }

  statusTypes() {
    return this.#read('status types', () => this.remote.statusTypes());
  }

  documents(
    owner: OwnerRef,
    options?: { updatedAfter?: string },
  ): AsyncIterable<DocumentListEntry> {
    return this.#iterate(`documents of ${key(owner)}`, () => this.remote.documents(owner, options));
  }

  documentVersions(
    owner: OwnerRef,
    options?: { updatedAfter?: string },
  ): AsyncIterable<DocumentVersionEntry> {
    const label = `versions of ${key(owner)}${options?.updatedAfter ? '' : ' (all)'}`;
    return this.#iterate(label, () => this.remote.documentVersions(owner, options));
  }

  document(
    owner: OwnerRef,
    documentId: string,
    options?: { listedAt?: string | undefined },
  ): Promise<RemoteDocument> {
    return this.#read(`details of ${documentId}`, () =>
      this.remote.document(owner, documentId, options),
    );
  }

  downloadAttachment(owner: OwnerRef, documentId: string, attachmentId: string, dest: string) {
    return this.#read(`download ${documentId}/${attachmentId}`, () =>
      this.remote.downloadAttachment(owner, documentId, attachmentId, dest),
    );
  }

  createDocument(owner: OwnerRef, doc: NewDocument): Promise<RemoteDocument> {
    return this.#write({ kind: 'create-document', owner, name: doc.name }, () =>
      this.remote.createDocument(owner, doc),
    );
  }

  deleteDocument(owner: OwnerRef, documentId: string): Promise<void> {
    return this.#write({ kind: 'delete-document', owner, documentId }, () =>
      this.remote.deleteDocument(owner, documentId),
    );
  }

  assignStatus(
    owner: OwnerRef,
    documentId: string,
    typeId: string,
    effectiveDate: string,
  ): Promise<RemoteStatus> {
    return this.#write({ kind: 'assign-status', owner, documentId, typeId }, () =>
      this.remote.assignStatus(owner, documentId, typeId, effectiveDate),
    );
  }

  uploadAttachment(
    owner: OwnerRef,
    documentId: string,
    source: UploadSource,
    fileName: string,
  ): Promise<RemoteAttachment> {
    const write = {
      kind: 'upload-attachment',
      owner,
      documentId,
      fileName,
      filePath: source.label,
    } as const;
    return this.#write(
      write,
      () => this.remote.uploadAttachment(owner, documentId, source, fileName),
      () => ({ ...write, sha256: source.sent()?.sha256 ?? null }),
    );
  }

  deleteAttachment(owner: OwnerRef, documentId: string, attachmentId: string): Promise<void> {
    return this.#write({ kind: 'delete-attachment', owner, documentId, attachmentId }, () =>
      this.remote.deleteAttachment(owner, documentId, attachmentId),
    );
  }

  async #read<T>(label: string, call: () => Promise<T>): Promise<T> {
    this.hooks.alive();
    const result = await this.board.track(label, this.#inTurn(call));
    await this.#maybeHold(label);
    return result;
  }

  /** `answered`: the write as the ledger records it once answered (an upload: what it sent). */
  async #write<T>(
    write: ServiceWrite,
    call: () => Promise<T>,
    answered: () => ServiceWrite = () => write,
  ): Promise<T> {
    this.hooks.alive();
    await this.hooks.beforeWrite(write);
    this.hooks.alive();
    const label = `${write.kind} ${'documentId' in write ? write.documentId : write.name}`;
    const lostBefore = this.hooks.answersLost();
    let result: T;
    try {
      result = await this.board.track(label, this.#inTurn(call));
    } catch (error) {
      this.hooks.afterWrite(answered(), error, this.hooks.answersLost() > lostBefore);
      await this.#maybeHold(label);
      throw error;
    }
    this.hooks.afterWrite(answered(), result, false);
    await this.#maybeHold(label);
    return result;
  }

  /** The first page of a listing may come late; the rest follow it. */
  #iterate<T>(label: string, make: () => AsyncIterable<T>): AsyncIterable<T> {
    const self = this;
    return {
      [Symbol.asyncIterator]() {
        self.hooks.alive();
        const inner = make()[Symbol.asyncIterator]();
        let first = true;
        return {
          async next() {
            self.hooks.alive();
            const item = await self.board.track(
              label,
              self.#inTurn(() => inner.next()),
            );
            if (first) {
              first = false;
              await self.#maybeHold(label);
            }
            return item;
          },
          async return(value?: unknown) {
            if (inner.return) return self.board.track(label, () => inner.return!(value));
            return { done: true as const, value: value as T };
          },
        };
      },
    };
  }

  /** A call waits for its turn (port-turns.ts); a life that ended meanwhile makes none. */
  #inTurn<T>(call: () => Promise<T>): () => Promise<T> {
    return () => {
      this.hooks.alive();
      return call();
    };
  }

  /** An answer inside a folder call (a download into place) is never held: that call waits. */
  async #maybeHold(label: string): Promise<void> {
    if (this.board.turns.nested || !this.hooks.holdAnswer(label)) return;
    await this.hooks.parkAnswer(label);
    this.hooks.alive();
  }
}

/** The folder's calls that answer at once, with nothing to wait for: they take no turn. */
const AT_ONCE: ReadonlySet<string> = new Set(['absolutePath', 'readAhead', 'uploadSource']);

/**
 * The folder adapter with every call counted in flight and made in its turn (port-turns.ts),
 * failed as the disk's fault says (disk-faults.ts), refused after a crash.
 */
export function trackedLocal<T extends LocalStore>(
  local: T,
  board: ParkBoard,
  hooks: PortHooks,
): T {
  return new Proxy(local, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = String(prop);
      const apply = (args: unknown[]) =>
        (value as (...a: unknown[]) => unknown).apply(target, args);
      if (AT_ONCE.has(method))
        return (...args: unknown[]) => {
          hooks.alive();
          return apply(args);
        };
      return (...args: unknown[]) => {
        hooks.alive();
        return board.track(`local ${method}`, () => {
          hooks.alive();
          return hooks.diskCall(method, args, async () => {
            const after = hooks.localCall(method, args);
            const result = await apply(args);
            after?.(result);
            return result;
          });
        });
      };
    },
  });
}

/**
 * The client's clock in the simulation, and the hook that tells it a 429 came. The client does not
 * retry (a fault fails its request at once, as a sync sees it after its retries); a 429's
 * `Retry-After` pauses its whole queue, and here that pause counts as served with those retries:
 * it ends at once. Otherwise every request after it would wait in flight on a timer nobody fires
 * (the harness moves time only between steps). The pause is the queue's one timer that does not
 * hold the process, besides the grace of a stop.
 */
export function servedPauses(): {
  readonly time: Clock;
  readonly onResponse: (info: ResponseInfo) => void;
} {
  let owed = false;
  return {
    time: {
      now: () => REAL_CLOCK.now(),
      after(ms, fire, holdsProcess) {
        if (!owed || holdsProcess !== false) return REAL_CLOCK.after(ms, fire, holdsProcess);
        owed = false;
        let live = true;
        queueMicrotask(() => {
          if (live) fire();
        });
        return () => {
          live = false;
        };
      },
    },
    onResponse(info) {
      if (info.status === 429) owed = true;
    },
  };
}
