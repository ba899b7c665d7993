/**
 * The shapes every layer agrees on. Ids are opaque strings everywhere inside docsync (api.md:
 * "normalise to string on read; send back exactly what was read"). Timestamps are kept as the
 * service wrote them; `timestamps.ts` compares them.
 */

export type OwnerKind = 'company' | 'trust';

/** The company or trust a document belongs to. */
export interface OwnerRef {
  readonly kind: OwnerKind;
  readonly id: string;
}

export interface Company {
  readonly kind: 'company';
  readonly id: string;
  readonly name: string;
  /** ACN, 9 digits; how the initial sync matches companies. */
  readonly number: string | null;
  readonly businessNumber: string | null;
  /** The whole object as the service sent it, written to `.entity.json`. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface Trust {
  readonly kind: 'trust';
  readonly id: string;
  readonly name: string;
  /** ABN, 11 digits, may be missing; trusts match by ABN, then by name. */
  readonly abn: string | null;
  readonly type: string | null;
  readonly raw: Readonly<Record<string, unknown>>;
  /**
   * Where `name` came from when the record had none (the public examples carry only
   * `trustNameId`): the contact it names, or the trust's id ("Trust 17337"); absent: `name`.
   */
  readonly nameFrom?: 'contact' | 'id';
  /** Why the trust is named by its id: said as a warning wherever records in error are. */
  readonly unnamed?: string;
}

export type Entity = Company | Trust;

export interface StatusType {
  readonly id: string;
  readonly name: string;
}

export interface RemoteStatus {
  /** Id of this status record; a new assignment gets a new id. */
  readonly id: string;
  readonly typeId: string;
  /** The status type's name, e.g. "DOCUMENT PREPARED". */
  readonly type: string;
  /** yyyy-MM-dd */
  readonly effectiveDate: string;
  readonly createdBy: string | null;
}

export type AttachmentKind = 'user' | 'system';

export interface RemoteAttachment {
  /** `UA…` user, `F…` system; sent back exactly as read. */
  readonly id: string;
  readonly kind: AttachmentKind;
  /** File name as the service holds it. */
  readonly name: string;
  readonly creationDate: string | null;
}

/** Which version of a document the service holds: all a planner needs of a listing. */
export interface DocumentVersion {
  readonly id: string;
  /** UTC without zone, microseconds in lists (api.md); null when the list left it out. */
  readonly lastUpdatedTimestamp: string | null;
}

/** A document as the list operation returns it. */
export interface RemoteDocumentSummary {
  readonly id: string;
  readonly owner: OwnerRef;
  readonly traceNumber: string | null;
  readonly name: string;
  /** yyyy-MM-dd */
  readonly documentDate: string;
  readonly asicDocNumber: string | null;
  /**
   * UTC without zone, microseconds in lists, seconds in details (api.md); null when the list
   * left it out (a document's details always have one: see RemoteDocument).
   */
  readonly lastUpdatedTimestamp: string | null;
  readonly status: RemoteStatus | null;
}

/**
 * A company document waiting to be lodged with ASIC, as the `unlodged` lists return it. Its
 * shape is the service's public one (BGL's "List of Unlodged Documents" pages; api.md gives
 * only the paths): no `lastUpdatedTimestamp`, the company as an object, and the lodgement's
 * details. The owner is that company.
 */
export interface UnlodgedDocument {
  readonly id: string;
  readonly owner: OwnerRef;
  readonly traceNumber: string | null;
  readonly asicDocNumber: string | null;
  /** The form, e.g. "Form 484". */
  readonly name: string;
  /** yyyy-MM-dd */
  readonly documentDate: string;
  readonly status: RemoteStatus | null;
  readonly lodgementDetails: LodgementDetails | null;
  /** The company as the service sent it (`id`, `name`, `number`, ...), ids as strings. */
  readonly company: Readonly<Record<string, unknown>>;
}

export interface LodgementDetails {
  /** An ISO 8601 date: ASIC's late date. */
  readonly lodgementDeadlineDate: string | null;
  /** The user who prepared the document. */
  readonly preparedBy: string | null;
  /** As the documents screen shows it (form 484 only, the service says). */
  readonly changesSummary: string | null;
  readonly lodgementURL: string | null;
  /** Whether it can be lodged electronically. */
  readonly electronic: boolean | null;
}

/**
 * A document as the details operation returns it, with its change time: the details', else its
 * list item's (the client finds one, or the document cannot be read).
 */
export interface RemoteDocument extends Omit<RemoteDocumentSummary, 'lastUpdatedTimestamp'> {
  /** UTC without zone (api.md). */
  readonly lastUpdatedTimestamp: string;
  readonly attachments: readonly RemoteAttachment[];
}

/** One entry of `.document.json`'s `attachments`. */
export interface DocumentMetaAttachment {
  readonly id: string;
  readonly kind: AttachmentKind;
  /** The local file name inside the document folder (may differ from the remote name). */
  readonly file: string;
  readonly creationDate: string | null;
  readonly sha256: string;
}

/** The content of `.document.json` (daemon.md). */
export interface DocumentMeta {
  readonly id: string;
  readonly owner: OwnerRef;
  readonly name: string;
  readonly documentDate: string;
  readonly traceNumber: string | null;
  readonly asicDocNumber: string | null;
  /** Status type name; the user may edit it (any letter case) to assign a new status. */
  readonly status: string | null;
  readonly statusDate: string | null;
  readonly lastUpdatedTimestamp: string;
  readonly attachments: readonly DocumentMetaAttachment[];
  readonly link: string;
}

/** A regular file inside a document folder, as the local store saw it. */
export interface LocalFile {
  /** Name inside the document folder. */
  readonly name: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly sha256: string;
}

/**
 * What a scan saw of one entry: size, mtime, ctime and inode as one string (the local store
 * makes it, `stampOf`). Opaque outside the store; equal stamps mean the entry was not touched.
 */
export type FileStamp = string & { readonly __fileStamp: true };

/**
 * Which folder or file an entry is on disk, whatever its name: its device and inode, as one
 * string (the local store makes it). A rename or a move within the device keeps it, so a push
 * can find what it was made from after a person renamed it. Opaque outside the store.
 */
export type EntryIdentity = string & { readonly __entryIdentity: true };

/** One document folder inside an entity folder. */
export interface LocalDocumentSnapshot {
  /** Path relative to the store root, `/`-separated. */
  readonly folder: string;
  /** Parsed `.document.json`; null for a folder the user created (a new document). */
  readonly meta: DocumentMeta | null;
  /** Why `.document.json` could not be read, when it exists but is broken. */
  readonly metaError?: string;
  /**
   * mtime of `.document.json` (local epoch ms): when a status edit was made, for "newer change
   * wins" (daemon.md). Absent when unknown; the planner then lets the service's change win.
   */
  readonly metaMtimeMs?: number;
  /** Attachment files: settled, not ignored, `.document.json` excluded. */
  readonly files: readonly LocalFile[];
  /**
   * Every entry of the folder the scan saw as it is, by name, with its stamp: `.document.json`
   * and the files above among them, not a file still changing nor an ignored one. A local write
   * the plan makes from this scan checks its target against it first: what changed
   * since is not overwritten, moved or trashed, and the document is planned again.
   */
  readonly seen?: ReadonlyMap<string, FileStamp>;
}

/**
 * An entry of the folder that is not synced, and why: a symbolic link, a special file, a name the
 * service cannot store. Never dropped without a word (daemon.md; `docsync status`, "Not synced").
 * Files matching the ignore patterns are not entries of this kind: they are documented as never
 * synced, and reporting every editor lock file would bury the real problems.
 */
export interface SkippedEntry {
  /**
   * Relative to the root, `/`-separated. Bytes that are not UTF-8 show as `\xNN` and control
   * characters escaped (`\n`, `\t`, `\x1b`), so the path prints on one line as it can be typed.
   */
  readonly path: string;
  /** One sentence a user understands, saying what to do. */
  readonly reason: string;
}

/** Everything the store holds for one entity at one instant. */
export interface LocalEntitySnapshot {
  readonly owner: OwnerRef;
  /** Path of the entity folder relative to the root; null when it does not exist yet. */
  readonly folder: string | null;
  readonly documents: readonly LocalDocumentSnapshot[];
  /** Entries of the entity folder the scan will not sync (SkippedEntry). */
  readonly skipped: readonly SkippedEntry[];
  /**
   * Files the scan saw changing within the settle time, so reported as the base knew them or
   * left out when new: a run that wants the folder fully synced must wait and scan again.
   */
  readonly unsettled: number;
}

/**
 * Where base documents missing from their entity folder turned up elsewhere in the store (a
 * folder moved into another entity, or into a subfolder), and the `.document.json` files of the
 * store that could not be read: absence proves a deletion only when neither explains it.
 */
export interface LocatedDocuments {
  /** Document id → folder (relative to the root) whose `.document.json` names it. */
  readonly found: ReadonlyMap<string, string>;
  /** Folders whose `.document.json` could not be read: any of them may be a missing document. */
  readonly unreadable: readonly string[];
}

/** What both sides last agreed on for one attachment (kept in SQLite). */
export interface BaseAttachment {
  readonly id: string;
  readonly kind: AttachmentKind;
  readonly file: string;
  readonly sha256: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** What both sides last agreed on for one document (kept in SQLite). */
export interface BaseDocument {
  readonly id: string;
  readonly owner: OwnerRef;
  readonly name: string;
  readonly documentDate: string;
  readonly statusId: string | null;
  readonly statusTypeId: string | null;
  readonly statusDate: string | null;
  readonly lastUpdatedTimestamp: string;
  /** Folder path relative to the root at the last agreement; the user may move it. */
  readonly folder: string;
  readonly attachments: readonly BaseAttachment[];
}
