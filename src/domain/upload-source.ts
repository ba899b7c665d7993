/**
 * A local file on its way to the service. The folder is shared, so the file named by a plan may
 * have been swapped (for a link to a file elsewhere, a special file, another file) by the time
 * it is sent: the source opens it anew for each attempt of the upload, checks what it holds,
 * and reads the bytes from that descriptor only. What the last attempt read is what was sent,
 * and the agreed state records that, never what the scan saw before.
 */
import type { LocalFile } from './types.js';

export interface UploadSource {
  /** The file, relative to the store root (or as a person named it), for messages. */
  readonly label: string;
  /**
   * Opens the file for one attempt. Rejects with LocalChangedError when it is no longer the file
   * the plan saw: a link, not a regular file, outside the root, another file, changed since.
   */
  open(): Promise<OpenedUpload>;
  /** The bytes the last attempt read to their end (null before): what a success sent. */
  sent(): LocalFile | null;
}

export interface OpenedUpload {
  /** Bytes to send, fixed when the file was opened. */
  readonly size: number;
  /**
   * The bytes, read from the descriptor held and hashed as they go. Rejects (before the last
   * bytes are handed over) when the file changed while it was read: a torn copy never completes.
   */
  chunks(): AsyncIterable<Uint8Array>;
  close(): Promise<void>;
}
