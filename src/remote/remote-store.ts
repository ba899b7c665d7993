/**
 * The RemoteStore port: what the sync engine needs of the service, and the types it speaks in.
 * ServiceClient is the real adapter and takes these types from here; anything with these
 * methods (a recording wrapper, a fake) can stand in.
 */
import type {
  Company,
  DocumentVersion,
  OwnerRef,
  RemoteAttachment,
  RemoteDocument,
  RemoteDocumentSummary,
  RemoteStatus,
  StatusType,
  Trust,
} from '../domain/types.js';
import type { UploadSource } from '../domain/upload-source.js';

/** A list item that did not match the contract: reported, never allowed to sink the list. */
export interface MalformedEntry {
  readonly malformed: true;
  readonly id: string | null;
  readonly error: Error;
}

export type DocumentListEntry = RemoteDocumentSummary | MalformedEntry;
export type DocumentVersionEntry = DocumentVersion | MalformedEntry;

export interface NewDocument {
  readonly name: string;
  readonly documentDate: string;
  readonly asicDocNumber?: string | null;
  readonly statusTypeId?: string;
}

/** What a download wrote: its length and the sha256 of its bytes. */
export interface DownloadResult {
  readonly bytes: number;
  readonly sha256: string;
}

export interface RemoteStore {
  /**
   * With `details`, each company carries `details` (labels, clientNumber, ...; api.md). A record
   * that breaks the contract is a MalformedEntry: reported and skipped, never the list's end.
   */
  companies(options?: { details?: boolean }): AsyncIterable<Company | MalformedEntry>;
  /** Named from `name`, else the `trustNameId` contact, else "Trust <id>" (`Trust.unnamed`). */
  trusts(): AsyncIterable<Trust | MalformedEntry>;
  statusTypes(): Promise<StatusType[]>;
  documents(owner: OwnerRef, options?: { updatedAfter?: string }): AsyncIterable<DocumentListEntry>;
  /** The same listing, only each document's id and `lastUpdatedTimestamp` (what a plan reads). */
  documentVersions(
    owner: OwnerRef,
    options?: { updatedAfter?: string },
  ): AsyncIterable<DocumentVersionEntry>;
  /** `listedAt`: the list item's change time, used when the details carry none. */
  document(
    owner: OwnerRef,
    documentId: string,
    options?: { listedAt?: string | undefined },
  ): Promise<RemoteDocument>;
  createDocument(owner: OwnerRef, doc: NewDocument): Promise<RemoteDocument>;
  deleteDocument(owner: OwnerRef, documentId: string): Promise<void>;
  assignStatus(
    owner: OwnerRef,
    documentId: string,
    typeId: string,
    effectiveDate: string,
  ): Promise<RemoteStatus>;
  /**
   * Sends the file `source` opens (opened again for each attempt), as `fileName`; what it read,
   * the bytes sent, is `source.sent()` once this resolves.
   */
  uploadAttachment(
    owner: OwnerRef,
    documentId: string,
    source: UploadSource,
    fileName: string,
  ): Promise<RemoteAttachment>;
  downloadAttachment(
    owner: OwnerRef,
    documentId: string,
    attachmentId: string,
    dest: string,
  ): Promise<DownloadResult>;
  deleteAttachment(owner: OwnerRef, documentId: string, attachmentId: string): Promise<void>;
}
