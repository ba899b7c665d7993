/**
 * The RemoteStore port: what the sync engine needs of the service. ServiceClient is the real
 * adapter; anything with these methods (a recording wrapper, a fake) can stand in.
 */
import type {
  Company,
  OwnerRef,
  RemoteAttachment,
  RemoteDocument,
  RemoteStatus,
  StatusType,
  Trust,
} from '../domain/types.js';
import type { DownloadResult } from './download.js';
import type { DocumentListEntry, DocumentVersionEntry, NewDocument } from './service-client.js';

export interface RemoteStore {
  companies(): AsyncIterable<Company>;
  trusts(): AsyncIterable<Trust>;
  statusTypes(): Promise<StatusType[]>;
  documents(owner: OwnerRef, options?: { updatedAfter?: string }): AsyncIterable<DocumentListEntry>;
  /** The same listing, only each document's id and `lastUpdatedTimestamp` (what a plan reads). */
  documentVersions(
    owner: OwnerRef,
    options?: { updatedAfter?: string },
  ): AsyncIterable<DocumentVersionEntry>;
  document(owner: OwnerRef, documentId: string): Promise<RemoteDocument>;
  createDocument(owner: OwnerRef, doc: NewDocument): Promise<RemoteDocument>;
  deleteDocument(owner: OwnerRef, documentId: string): Promise<void>;
  assignStatus(
    owner: OwnerRef,
    documentId: string,
    typeId: string,
    effectiveDate: string,
  ): Promise<RemoteStatus>;
  uploadAttachment(
    owner: OwnerRef,
    documentId: string,
    filePath: string,
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
