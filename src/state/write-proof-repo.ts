/**
 * The test documents `docsync check --write` is making or made (domain/write-proofs.ts): each
 * recorded before its create is sent, given its id when the create answers, and forgotten once
 * it is deleted in the service. What a crash leaves here is how the next `check --write` or run
 * finds the document to remove, and how a sync knows not to pull it.
 *
 * Rarely more than one entry, replaced whole, so the list lives under one key of the settings
 * table, written and read through the one schema below (no migration for a list this small).
 * Each change is a read and a write in one IMMEDIATE transaction: a proof and a run beside it
 * may both change the list.
 */
import * as z from 'zod';
import type { WriteProof } from '../domain/write-proofs.js';
import type { SettingsRepo } from './settings-repo.js';

const writeProof = z.object({
  name: z.string(),
  owner: z.object({ kind: z.enum(['company', 'trust']), id: z.string() }),
  entityName: z.string(),
  documentId: z.string().nullable(),
  pid: z.number(),
  startedAt: z.number(),
});

const writeProofs = z.array(writeProof);

const KEY = 'writeProofs';

export class WriteProofRepo {
  constructor(
    private readonly settings: Pick<SettingsRepo, 'get' | 'set' | 'delete'>,
    private readonly transaction: <T>(fn: () => T) => T,
  ) {}

  list(): WriteProof[] {
    const text = this.settings.get(KEY);
    if (text === null) return [];
    const parsed = writeProofs.safeParse(JSON.parse(text));
    // Written only through this repository; anything else is dropped rather than half-read.
    return parsed.success ? parsed.data : [];
  }

  /** Before the create is sent: the proof, without its document's id yet. */
  begin(proof: Omit<WriteProof, 'documentId'>): void {
    this.#change((all) => [
      ...all.filter((p) => p.name !== proof.name),
      { ...proof, documentId: null },
    ]);
  }

  /** The create answered: the test document's id. */
  created(name: string, documentId: string): void {
    this.#change((all) => all.map((p) => (p.name === name ? { ...p, documentId } : p)));
  }

  /** The test document is deleted in the service, or was never made: nothing left to find. */
  finish(name: string): void {
    this.#change((all) => all.filter((p) => p.name !== name));
  }

  #change(next: (all: WriteProof[]) => WriteProof[]): void {
    this.transaction(() => {
      const all = next(this.list());
      if (all.length === 0) this.settings.delete(KEY);
      else this.settings.set(KEY, JSON.stringify(writeProofs.parse(all)));
    });
  }
}
