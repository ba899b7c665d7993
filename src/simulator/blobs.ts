/**
 * Attachment bytes. Generated blobs are a small valid PDF padded with seeded filler up to the
 * requested size, rebuilt from their key on each download (no disk, no memory held). Uploaded
 * and admin-added bytes are files under the data directory.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Readable as ReadableStream } from 'node:stream';
import { minimalPdf } from './pdf.js';
import { hashString, seededRandom } from './random.js';
import type { AttachmentRecord, BlobSource } from './records.js';

/** Titles are padded to one length, so every generated PDF has the same size, known up front. */
const TITLE_LENGTH = 64;
const fixedTitle = (title: string) => title.slice(0, TITLE_LENGTH).padEnd(TITLE_LENGTH, ' ');
export const MIN_GENERATED_SIZE = minimalPdf(fixedTitle('')).length;

export function generatedBlob(key: string, title: string, size: number): BlobSource {
  return { kind: 'generated', key, title, size: Math.max(size, MIN_GENERATED_SIZE) };
}

export function generatedBytes(blob: Extract<BlobSource, { kind: 'generated' }>): Buffer {
  const pdf = minimalPdf(fixedTitle(blob.title));
  if (blob.size <= pdf.length) return pdf;
  const out = Buffer.alloc(blob.size);
  pdf.copy(out);
  // Filler after %%EOF is a PDF comment line of seeded letters: readers ignore it, and every
  // attachment gets distinct content (distinct sha256) from its key.
  const random = seededRandom(hashString(blob.key));
  out[pdf.length] = 0x25; // '%'
  for (let i = pdf.length + 1; i < out.length; i++) out[i] = 0x61 + Math.floor(random() * 26);
  return out;
}

export async function readBlob(blob: BlobSource): Promise<Buffer> {
  return blob.kind === 'generated' ? generatedBytes(blob) : readFile(blob.path);
}

export function blobStream(blob: BlobSource): Readable {
  return blob.kind === 'generated'
    ? ReadableStream.from([generatedBytes(blob)])
    : createReadStream(blob.path);
}

export async function attachmentSha256(attachment: AttachmentRecord): Promise<string> {
  attachment.sha256 ??= createHash('sha256')
    .update(await readBlob(attachment.blob))
    .digest('hex');
  return attachment.sha256;
}
