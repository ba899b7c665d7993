/**
 * Reads the one file part of a multipart upload (`file`, or the part the shapes name) into a file under the data directory,
 * refusing more than 50 MiB (413) while it streams, so an oversized upload never fills memory.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { badRequest, SimError } from './sim-error.js';

export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export interface UploadedFile {
  readonly name: string;
  readonly path: string;
  readonly size: number;
}

export async function receiveUpload(
  req: IncomingMessage,
  dataDir: string,
  field = 'file',
): Promise<UploadedFile> {
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > MAX_UPLOAD_BYTES + 64 * 1024) throw tooLarge();
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 },
      // Browsers and form-data encoders send a file name as raw UTF-8 (WHATWG's multipart form
      // encoding); busboy's default, latin1, made `Résumé.pdf` into `RÃ©sumÃ©.pdf`.
      defParamCharset: 'utf8',
    });
  } catch {
    throw badRequest('The body must be multipart/form-data');
  }
  const target = path.join(dataDir, `upload-${randomUUID()}`);
  try {
    const file = await parseFilePart(req, parser, target, field);
    return file;
  } catch (error) {
    await rm(target, { force: true });
    throw error;
  }
}

function parseFilePart(
  req: IncomingMessage,
  parser: busboy.Busboy,
  target: string,
  wanted: string,
): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    let saving: Promise<UploadedFile> | null = null;
    parser.on('file', (field, stream, info) => {
      if (field !== wanted || saving) {
        stream.resume();
        return;
      }
      let size = 0;
      let truncated = false;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.on('limit', () => (truncated = true));
      saving = pipeline(stream, createWriteStream(target)).then(() => {
        if (truncated) throw tooLarge();
        if (!info.filename) throw badRequest('The file part must carry a file name');
        return { name: info.filename, path: target, size };
      });
      saving.catch(() => undefined);
    });
    parser.on('error', () => reject(badRequest('Malformed multipart body')));
    parser.on('close', () => {
      if (!saving) reject(badRequest(`A part named "${wanted}" is required`));
      else saving.then(resolve, reject);
    });
    req.pipe(parser);
  });
}

function tooLarge(): SimError {
  return new SimError(413, 'too_large', `Attachments are limited to ${MAX_UPLOAD_BYTES} bytes`);
}
