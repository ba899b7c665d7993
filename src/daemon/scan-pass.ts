/**
 * Checks every entity folder at least every `watcher.scanIntervalSeconds`, apart from polling
 * the service: a scan costs no API request. Each pass takes a fingerprint of every
 * entity folder (folder-signature.ts) and asks for a watcher-lane sync of those whose
 * fingerprint moved since the pass before, unless the entity synced meanwhile (docsync's own
 * writes move it too, and that sync saw the folder anyway). The OS's change events stay the fast
 * path; this pass catches what they never report: another machine's writes on a network share,
 * events lost to an overflowing queue. Before each pass but the first, it looks above the entity
 * folders too (entity-roots.ts): a new folder there has no fingerprint to move.
 *
 * A folder the pass has no fingerprint of (every folder at the daemon's start, one that was busy
 * in a sync then, a new entity's) has nothing to compare with: it is compared with the agreed
 * state instead (`comparer`, local-work-check.ts), and a sync is asked for at once when it holds
 * work. A pass that only learned the fingerprints left the files a stop had left
 * behind unseen until the start's poll round reached their entity, up to a round later: a
 * restart remembers no fingerprint, and they never moved again.
 *
 * The walk is synchronous on the server's own disk (fs-calls.ts), so the pass gives the event loop
 * a turn every few milliseconds of work (time-slice.ts), between entities and between document
 * folders: a pass over a firm's entities would otherwise hold it for a second or more, every
 * webhook's answer and every change waiting behind it.
 */
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { entityFolderSignature } from '../local/folder-signature.js';
import type { FsCalls } from '../local/fs-calls.js';
import { TimeSlice } from '../local/time-slice.js';

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
  /**
   * Begins the comparisons of one pass (what they all need is read once) and returns the one
   * that compares a folder the pass has no fingerprint of with the entity's agreed state: true
   * when a sync has work there. It runs under the entity's lock, after the fingerprint.
   */
  readonly comparer: () => (owner: OwnerRef, folder: string) => Promise<boolean>;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
  /** What a pass looked at, reported, and how long it took (the log: when passes run). */
  readonly onPassEnd?: (pass: PassSummary) => void;
  /** A look above the entity folders (entity-roots.ts), before each pass but the first. */
  readonly beforePass?: () => Promise<void>;
}

export interface PassSummary {
  readonly folders: number;
  readonly changed: number;
  readonly ms: number;
}

interface Seen {
  readonly signature: string;
  readonly at: number;
}

export class ScanPass {
  readonly #seen = new Map<string, Seen>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(private readonly options: ScanPassOptions) {}

  /** The first pass compares every folder with the agreed state; later ones, with the pass before. */
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
    let compare: ReturnType<ScanPassOptions['comparer']> | undefined;
    const slice = new TimeSlice();
    const started = performance.now();
    let folders = 0;
    for (const { owner, folder } of options.entities()) {
      if (this.#closed) break;
      await slice.checkpoint();
      folders += 1;
      const key = ownerKey(owner);
      const before = this.#seen.get(key);
      const look = await options.ifFree(owner, async () => {
        const signature = await entityFolderSignature(
          options.root,
          folder,
          options.ignore,
          fs,
          slice,
        );
        // Taken before the comparison: a change made during it moves the next fingerprint.
        if (before) return { signature, work: false };
        compare ??= options.comparer();
        return { signature, work: await compare(owner, folder) };
      });
      if (look === null) continue;
      const now = options.now();
      this.#seen.set(key, { signature: look.signature, at: now });
      if (before ? !this.#moved(owner, before, look.signature) : !look.work) continue;
      changed.push(owner);
      options.onChanged(owner);
    }
    options.onPassEnd?.({ folders, changed: changed.length, ms: performance.now() - started });
    return changed;
  }

  /** The fingerprint moved, and no sync of the entity saw the folder since the last one. */
  #moved(owner: OwnerRef, before: Seen, signature: string): boolean {
    return before.signature !== signature && this.options.syncedAt(owner) <= before.at;
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    const first = delayMs === 0;
    this.#timer = setTimeout(() => {
      // The first look above the entity folders is the start's full round's: it reads the catalogue.
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
