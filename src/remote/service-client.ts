/**
 * Every operation of the API contract as a typed function. This is the real adapter of the
 * engine's RemoteStore port and what `docsync api` calls. Parsing happens here, at the edge:
 * what leaves this file is domain types with string ids.
 */
import { RunStoppedError } from '../domain/errors.js';
import { sameId } from '../domain/ids.js';
import type {
  Company,
  OwnerRef,
  RemoteAttachment,
  RemoteDocument,
  RemoteStatus,
  StatusType,
  Trust,
  UnlodgedDocument,
} from '../domain/types.js';
import type { UnlodgedPage } from '../domain/unlodged-hints.js';
import type { UploadSource } from '../domain/upload-source.js';
import { ApiError } from './api-error.js';
import { PAGE_LIMIT, paged } from './paging.js';
import type {
  DocumentListEntry,
  DocumentVersionEntry,
  DownloadResult,
  MalformedEntry,
  NewDocument,
} from './remote-store.js';
import type { RouteName } from './routes.js';
import { type DocumentRead, normaliseIds, parse } from './schemas.js';
import type { ServiceHttp } from './service-http.js';
import type { ListKey } from './shapes.js';
import type { Transfers } from './transfers.js';
import { TrustNames } from './trust-names.js';

export type {
  DocumentListEntry,
  DocumentVersionEntry,
  MalformedEntry,
  NewDocument,
} from './remote-store.js';

export type Json = Record<string, unknown>;

export class ServiceClient {
  // Plain private members, not #private: a stand-in made with Object.create (a test's recording
  // wrapper) calls these methods with itself as `this`.
  private readonly trustNames: TrustNames;

  constructor(
    private readonly http: ServiceHttp,
    private readonly transfers: Transfers,
  ) {
    this.trustNames = new TrustNames((contactId) => this.contact(contactId));
  }

  private label(name: RouteName): string {
    return this.http.label(name);
  }

  /** Every company; one whose record breaks the contract is an entry saying so, not an end. */
  async *companies(options: { details?: boolean } = {}): AsyncGenerator<Company | MalformedEntry> {
    const query = { details: options.details };
    for await (const item of paged(this.http, 'listCompanies', { query }, 'companies')) {
      yield parseEntry(() => parse.company(item, this.label('listCompanies')), item);
    }
  }

  async company(companyId: string): Promise<Company> {
    const body = await this.http.request('companyDetails', {
      params: { companyId },
      query: { details: true },
    });
    return parse.company(body, this.label('companyDetails'));
  }

  async *companiesByLabel(
    labelId: string,
    options: { details?: boolean } = {},
  ): AsyncGenerator<Company> {
    const spec = { params: { labelId }, query: { details: options.details } };
    for await (const item of paged(this.http, 'companiesByLabel', spec, 'companies')) {
      yield parse.company(item, this.label('companiesByLabel'));
    }
  }

  /** Every trust, named (trust-names.ts); a record that breaks the contract is an entry saying so. */
  async *trusts(): AsyncGenerator<Trust | MalformedEntry> {
    for await (const item of paged(this.http, 'listTrusts', {}, 'trusts')) {
      const read = parseEntry(() => parse.trust(item, this.label('listTrusts')), item);
      yield 'malformed' in read ? read : await this.trustNames.named(read);
    }
  }

  async trust(trustId: string): Promise<Trust> {
    const body = await this.http.request('trustDetails', { params: { trustId } });
    return this.trustNames.named(parse.trust(body, this.label('trustDetails')));
  }

  trustRelationships(
    trustId: string,
    options: { includeHistory?: boolean } = {},
  ): AsyncGenerator<Json> {
    const spec = { params: { trustId }, query: { includeHistory: options.includeHistory } };
    return this.#records('trustRelationships', spec, 'trustRelationships');
  }

  /** The status types: the answer's list (service-shapes.ts), each with an `id` and a `name`. */
  async statusTypes(): Promise<StatusType[]> {
    const label = this.label('statusTypes');
    const { items } = this.http.shapes.list(
      await this.http.request('statusTypes'),
      label,
      'statusTypes',
    );
    return parse.statusTypes(items, label);
  }

  /** Documents of one owner, optionally only those updated strictly after `updatedAfter`. */
  documents(
    owner: OwnerRef,
    options: { updatedAfter?: string } = {},
  ): AsyncGenerator<DocumentListEntry> {
    return this.#documentList(owner, options, (item, route) =>
      parse.documentSummary(item, route, owner),
    );
  }

  /**
   * The same listing, read only for each document's id and `lastUpdatedTimestamp`: what the
   * sync engine compares with its base. An item whose other fields break the contract is not
   * reported here; its details are read (and reported) when it has changed.
   */
  documentVersions(
    owner: OwnerRef,
    options: { updatedAfter?: string } = {},
  ): AsyncGenerator<DocumentVersionEntry> {
    return this.#documentList(owner, options, parse.documentVersion);
  }

  async *#documentList<T>(
    owner: OwnerRef,
    options: { updatedAfter?: string },
    parseItem: (item: unknown, route: string) => T,
  ): AsyncGenerator<T | MalformedEntry> {
    const spec = { owner, query: { updatedAfter: options.updatedAfter } };
    for await (const item of paged(this.http, 'listDocuments', spec, 'documents')) {
      this.http.shapes.sawTimestamp('list', item);
      yield parseEntry(() => parseItem(item, this.label('listDocuments')), item);
    }
  }

  /**
   * A document's details. `listedAt` is its list item's `lastUpdatedTimestamp`, when the caller
   * has it: the change time when the details carry none (withChangeTime).
   */
  async document(
    owner: OwnerRef,
    documentId: string,
    options: { listedAt?: string | undefined } = {},
  ): Promise<RemoteDocument> {
    const body = await this.http.request('documentDetails', { owner, params: { documentId } });
    this.http.shapes.sawTimestamp('details', body);
    const read = parse.document(body, this.label('documentDetails'), owner);
    return this.withChangeTime(owner, read, options.listedAt, 'documentDetails');
  }

  async createDocument(owner: OwnerRef, doc: NewDocument): Promise<RemoteDocument> {
    const json = {
      name: doc.name,
      documentDate: doc.documentDate,
      ...(doc.asicDocNumber ? { asicDocNumber: doc.asicDocNumber } : {}),
      ...(doc.statusTypeId ? { status: { typeId: sendId(doc.statusTypeId) } } : {}),
    };
    const body = await this.http.request('createDocument', { owner, json });
    const read = parse.document(withAttachments(body), this.label('createDocument'), owner);
    try {
      return await this.withChangeTime(owner, read, undefined, 'createDocument');
    } catch (error) {
      // The document exists now: a stop during the read of its change time leaves the create in
      // doubt, settled by reading next time, never taken as unsent (it would be made twice).
      if (error instanceof RunStoppedError && !error.mayHaveApplied)
        throw new RunStoppedError(error.message, true);
      throw error;
    }
  }

  /**
   * The change time of a document whose details have none (the public company example): its
   * list item's, given or looked up in the owner's list (one request for most entities).
   */
  private async withChangeTime(
    owner: OwnerRef,
    read: DocumentRead,
    listedAt: string | undefined,
    name: RouteName,
  ): Promise<RemoteDocument> {
    const changedAt =
      read.lastUpdatedTimestamp ?? listedAt ?? (await this.changeTimeInList(owner, read.id));
    if (changedAt === null) {
      throw new ApiError(
        'MALFORMED_RESPONSE',
        `${this.label(name)}: document ${read.id} has no lastUpdatedTimestamp, and the document list does not show one either`,
        { route: this.label(name) },
      );
    }
    return { ...read, lastUpdatedTimestamp: changedAt };
  }

  private async changeTimeInList(owner: OwnerRef, documentId: string): Promise<string | null> {
    for await (const entry of this.documentVersions(owner)) {
      if (!('malformed' in entry) && sameId(entry.id, documentId))
        return entry.lastUpdatedTimestamp;
    }
    return null;
  }

  async deleteDocument(owner: OwnerRef, documentId: string): Promise<void> {
    await this.http.request('deleteDocument', { owner, params: { documentId } });
  }

  async assignStatus(
    owner: OwnerRef,
    documentId: string,
    typeId: string,
    effectiveDate: string,
  ): Promise<RemoteStatus> {
    const json = { typeId: sendId(typeId), effectiveDate };
    const body = await this.http.request('assignStatus', { owner, params: { documentId }, json });
    return parse.status(body, this.label('assignStatus'));
  }

  uploadAttachment(
    owner: OwnerRef,
    documentId: string,
    source: UploadSource,
    fileName: string,
  ): Promise<RemoteAttachment> {
    return this.transfers.upload(owner, documentId, source, fileName);
  }

  /** Streams the attachment to `dest`; the caller moves it into place. */
  downloadAttachment(
    owner: OwnerRef,
    documentId: string,
    attachmentId: string,
    dest: string,
  ): Promise<DownloadResult> {
    return this.transfers.download(owner, documentId, attachmentId, dest);
  }

  async deleteAttachment(owner: OwnerRef, documentId: string, attachmentId: string): Promise<void> {
    await this.http.request('deleteAttachment', { owner, params: { documentId, attachmentId } });
  }

  /** Company documents not lodged yet: one company's, or the whole firm's. */
  async *unlodged(companyId?: string): AsyncGenerator<UnlodgedDocument> {
    const name = companyId === undefined ? 'unlodgedOfFirm' : 'unlodgedOfCompany';
    const spec = companyId === undefined ? {} : { params: { companyId } };
    for await (const item of paged(this.http, name, spec, 'documents')) {
      yield parse.unlodged(item, this.label(name));
    }
  }

  /**
   * One page of the firm's unlodged documents, from `offset` (the daemon's sweep reads the list
   * a page at a time, spaced over its budget). An item that breaks the contract is counted and
   * left out, never the page's end.
   */
  async unlodgedPage(offset: number): Promise<UnlodgedPage> {
    const label = this.label('unlodgedOfFirm');
    const body = await this.http.request('unlodgedOfFirm', {
      query: { offset, limit: PAGE_LIMIT },
    });
    const { items, total } = this.http.shapes.list(body, label, 'documents');
    const read = items.map((item) => parseEntry(() => parse.unlodged(item, label), item));
    const documents = read.filter((r): r is UnlodgedDocument => !('malformed' in r));
    return {
      documents,
      malformed: read.length - documents.length,
      total,
      limit: PAGE_LIMIT,
    };
  }

  contacts(options: { details?: boolean } = {}): AsyncGenerator<Json> {
    return this.#records('listContacts', { query: { details: options.details } }, 'contacts');
  }

  async contact(contactId: string, options: { details?: boolean } = {}): Promise<Json> {
    const body = await this.http.request('contact', {
      params: { contactId },
      query: { details: options.details },
    });
    return normaliseIds(body, this.label('contact'));
  }

  unitTransactions(trustId: string): AsyncGenerator<Json> {
    return this.#records('listUnitTransactions', { params: { trustId } }, 'unitTransactions');
  }

  async createUnitTransaction(trustId: string, transaction: Json): Promise<Json> {
    const body = await this.http.request('createUnitTransaction', {
      params: { trustId },
      json: transaction,
    });
    return normaliseIds(body, this.label('createUnitTransaction'));
  }

  async deleteUnitTransaction(trustId: string, transactionId: string): Promise<void> {
    await this.http.request('deleteUnitTransaction', { params: { trustId, transactionId } });
  }

  async pensionSummary(fundId: string, financialYear: number): Promise<Json> {
    const body = await this.http.request('pensionSummary', {
      params: { fundId },
      query: { financialYear },
    });
    return normaliseIds(body, this.label('pensionSummary'));
  }

  async *#records(name: RouteName, spec: Parameters<ServiceHttp['request']>[1], key: ListKey) {
    for await (const item of paged(this.http, name, spec ?? {}, key))
      yield normaliseIds(item, this.label(name));
  }
}

function parseEntry<T>(parseItem: () => T, raw: unknown): T | MalformedEntry {
  try {
    return parseItem();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const id = (raw as { id?: unknown } | null)?.id;
    const usableId = typeof id === 'string' || typeof id === 'number' ? String(id) : null;
    return { malformed: true, id: usableId, error };
  }
}

/** Ids read as digits go back as numbers, the way the service sent them (api.md). */
function sendId(id: string): string | number {
  return /^\d{1,15}$/.test(id) ? Number(id) : id;
}

/** A freshly created record may omit its (empty) attachment list. */
function withAttachments(body: unknown): unknown {
  return body && typeof body === 'object' && !('attachments' in body)
    ? { ...body, attachments: [] }
    : body;
}
