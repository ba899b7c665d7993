/**
 * What users have moved away and mean to bring back (issue 15, "absence is not deletion"): entity
 * folders parked outside the root (sometimes with a link left in their place) and document
 * folders moved into another entity's folder or an `Archive/` subfolder. While a folder is away
 * the service must keep all of its documents; the book says when each comes back (a round), and
 * everything comes back before the final convergence, so the end state can be judged in step.
 */

export interface AwayEntity {
  /** Where the entity folder belongs, relative to the root (`Companies/…`). */
  readonly folder: string;
  /** Where it is parked: an absolute path in the scratch folder beside the root. */
  readonly parked: string;
  /** A link to `parked` stands in the entity folder's place meanwhile. */
  readonly link: boolean;
  readonly due: number;
}

export interface AwayDocument {
  readonly id: string;
  /** The folder it left, relative to the root, where it goes back. */
  readonly home: string;
  /** Where it is now, relative to the root. */
  readonly at: string;
  due: number;
}

export class AwayBook {
  readonly entities: AwayEntity[] = [];
  readonly documents: AwayDocument[] = [];
  /** The round being played; a move comes back a round or more later. */
  round = 0;

  /** `scratch`: a folder beside the root, outside the store. */
  constructor(readonly scratch: string) {}

  entityAway(folder: string): boolean {
    return this.entities.some((e) => e.folder === folder);
  }

  documentAway(id: string): boolean {
    return this.documents.some((d) => d.id === id);
  }

  /** Entity folders holding a document folder of another entity, moved in by a user. */
  hostsForeignDocuments(folder: string): boolean {
    return this.documents.some(
      (d) => d.at.startsWith(`${folder}/`) && !d.home.startsWith(`${folder}/`),
    );
  }

  /** The document will not come back: a user removed it from where it had gone. */
  forget(id: string): void {
    const i = this.documents.findIndex((d) => d.id === id);
    if (i >= 0) this.documents.splice(i, 1);
  }

  /** A round or more from now, up to three: long enough for a few syncs to see it missing. */
  dueAfter(random: () => number): number {
    return this.round + 1 + Math.floor(random() * 3);
  }
}
