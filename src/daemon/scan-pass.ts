/**
 * Checks every entity folder at least every `watcher.scanIntervalSeconds`, apart from polling
 * the service (issue 16): a scan costs no API request. Each pass takes a fingerprint of every
 * entity folder (folder-signature.ts) and asks for a watcher-lane sync of those whose
 * fingerprint moved since the pass before, unless the entity synced meanwhile (docsync's own
 * writes move it too, and that sync saw the folder anyway). The OS's change events stay the fast
 * path; this pass catches what they never report: another machine's writes on a network share,
 * events lost to an overflowing queue. Before each pass but the first, it looks above the entity
 * folders too (entity-roots.ts): a new folder there has no fingerprint to move.
 */
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { entityFolderSignature } from '../local/folder-signature.js';
import type { FsCalls } from '../local/fs-calls.js';

export interface ScanPassOptions {
  readonly root: string;
  readonly ignore: readonly string[];
  readonly intervalMs: number;
  /** The entities with a folder, as the state knows them. */
  readonly entities: () => readonly { readonly owner: OwnerRef; readonly folder: string }[];
  readonly fs: () => Promise<FsCalls>;
  /**
   * Runs `look` holding the entity's lock if it is free now; null when the entity is busy (in a
   * sync, which reads the folder anyway): the fingerprint is then not taken this pass.
   */
  readonly ifFree: <T>(owner: OwnerRef, look: () => Promise<T>) => Promise<T | null>;
  /** When the entity's last sync finished (0: not since the start). */
  readonly syncedAt: (owner: OwnerRef) => number;
  readonly onChanged: (owner: OwnerRef) => void;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
  /** A look above the entity folders (entity-roots.ts), before each pass but the first. */
  readonly beforePass?: () => Promise<void>;
}

export class ScanPass {
  readonly #seen = new Map<string, { readonly signature: string; readonly at: number }>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(private readonly options: ScanPassOptions) {}

  /** The first pass only learns the fingerprints: the start's full round covers the rest. */
  start(): void {
    this.#schedule(0);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One pass now (tests; the timer calls it too). Resolves with the entities it reported. */
  async pass(): Promise<OwnerRef[]> {
    const { options } = this;
    const fs = await options.fs();
    const changed: OwnerRef[] = [];
    for (const { owner, folder } of options.entities()) {
      if (this.#closed) break;
      const key = ownerKey(owner);
      const signature = await options.ifFree(owner, () =>
        entityFolderSignature(options.root, folder, options.ignore, fs),
      );
      if (signature === null) continue;
      const before = this.#seen.get(key);
      const now = options.now();
      this.#seen.set(key, { signature, at: now });
      if (!before || before.signature === signature) continue;
      if (options.syncedAt(owner) > before.at) continue;
      changed.push(owner);
      options.onChanged(owner);
    }
    return changed;
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    const first = delayMs === 0;
    this.#timer = setTimeout(() => {
      // The first look above the entity folders is the start's full round's, like the first pass.
      const before = first ? Promise.resolve() : (this.options.beforePass?.() ?? Promise.resolve());
      this.#running = before
        .catch(this.options.onError)
        .then(() => this.pass())
        .then(() => undefined, this.options.onError)
        .finally(() => {
          this.#running = null;
          this.#schedule(this.options.intervalMs);
        });
    }, delayMs);
    this.#timer.unref();
  }
}
