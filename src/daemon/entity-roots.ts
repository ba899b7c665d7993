/**
 * Above the entity folders, between the full cycles. A new company
 * folder that matched nothing stayed silent under the daemon until the nightly full cycle: only
 * that one read the companies and trusts, and with them the root. So each folder scan
 * (scan-pass.ts) and each change the watcher cannot tie to an entity look here: what is not
 * synced at the root, under `Companies/` or `Trusts/` (a loose file, a link, a folder outside
 * the two) is recorded for "Not synced" at once, with a line in the log; and a folder docsync
 * does not know (a new company's, a renamed one, one that matches nothing) makes it read the
 * companies and trusts again, which ties the folder or lists it as unmatched. Listing the two
 * folders costs no request; only an unknown folder costs the catalogue's.
 */
import type { LocalStore } from '../local/local-store.js';
import type { Logger } from '../log/create-logger.js';
import type { StateStore } from '../state/state-store.js';

export interface EntityRootsDeps {
  readonly local: Pick<LocalStore, 'skippedEntityFolders' | 'entityFolderPaths'>;
  readonly state: {
    readonly skipped: Pick<StateStore['skipped'], 'replaceEntityFolders'>;
    readonly entities: Pick<StateStore['entities'], 'folders' | 'listUnmatchedFolders'>;
  };
  readonly logger: Logger;
  readonly now: () => number;
  /** Reads the companies and trusts again, tying or listing every entity folder. */
  readonly refresh: () => Promise<unknown>;
  /** Where a look nobody waits for (the one made again) reports its failure. */
  readonly onError: (error: unknown) => void;
}

export class EntityRoots {
  #running: Promise<void> | null = null;
  #again = false;

  constructor(private readonly deps: EntityRootsDeps) {}

  /** One look; one asked for while a look runs is made once, after it. */
  check(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#look().finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        void this.check().catch(this.deps.onError);
      }
    });
    return this.#running;
  }

  async #look(): Promise<void> {
    const { local, state, logger, now } = this.deps;
    const skipped = await local.skippedEntityFolders();
    for (const entry of state.skipped.replaceEntityFolders(skipped, now()))
      logger.warn({ path: entry.path }, `not synced: ${entry.path}: ${entry.reason}`);
    const known = new Set([
      // Not `list()`: parsing every record would hold the loop before each scan pass.
      ...state.entities.folders().map((f) => f.folder),
      ...state.entities.listUnmatchedFolders().map((f) => f.folder),
    ]);
    const unknown = (await local.entityFolderPaths()).filter((f) => !known.has(f));
    if (unknown.length === 0) return;
    logger.info(
      { folders: unknown },
      `${unknown.length === 1 ? 'a folder' : `${unknown.length} folders`} docsync does not know under Companies/ or Trusts/: reading the companies and trusts to match ${unknown.length === 1 ? 'it' : 'them'}`,
    );
    await this.deps.refresh();
  }
}
