/**
 * The multipart body of an upload, over a file already opened and checked (OpenedUpload). got
 * encodes any spec-shaped FormData with form-data-encoder, which takes a file as any object
 * tagged `File` with a `size` and a `stream()`: so the bytes stream from the descriptor the
 * local store holds, with their length known up front, and are never held whole in memory. (A
 * real Blob can only be made from a path, which would be opened again by name.)
 */
import type { OpenedUpload } from '../domain/upload-source.js';

/** The one file of an upload request, as form-data-encoder reads a File. */
class OpenedFile {
  readonly [Symbol.toStringTag] = 'File';
  /** Empty: sent as `application/octet-stream`, as a Blob without a type was. */
  readonly type = '';
  readonly lastModified = 0;

  constructor(
    readonly name: string,
    private readonly opened: OpenedUpload,
  ) {}

  get size(): number {
    return this.opened.size;
  }

  stream(): AsyncIterable<Uint8Array> {
    return this.opened.chunks();
  }
}

/** A form of one field, read-only: what got and form-data-encoder ask of a FormData. */
export class UploadForm {
  readonly [Symbol.toStringTag] = 'FormData';
  readonly #entries: readonly [string, OpenedFile][];

  constructor(field: string, opened: OpenedUpload, fileName: string) {
    this.#entries = [[field, new OpenedFile(fileName, opened)]];
  }

  append(): void {
    throw new TypeError('an upload form holds its one file only');
  }

  getAll(name: string): OpenedFile[] {
    return this.#entries.filter(([field]) => field === name).map(([, file]) => file);
  }

  *entries(): IterableIterator<[string, OpenedFile]> {
    for (const [field, file] of this.#entries) yield [field, file];
  }

  [Symbol.iterator](): IterableIterator<[string, OpenedFile]> {
    return this.entries();
  }
}
