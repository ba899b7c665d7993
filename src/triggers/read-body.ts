/**
 * Reads a request body up to a limit. The limit is enforced while reading, not after: once a
 * byte too many arrives, reading stops and nothing more is kept, so a huge or endless body costs
 * at most `limit` bytes of memory. A declared Content-Length over the limit is refused before
 * reading anything.
 */
import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { readonly ok: true; readonly body: Buffer }
  | { readonly ok: false; readonly reason: 'too-large' | 'aborted' };

export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.resolve({ ok: false, reason: 'too-large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyResult) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('aborted', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        // Stop reading: the caller answers 413 and closes the connection.
        req.pause();
        finish({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onAbort = () => finish({ ok: false, reason: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('aborted', onAbort);
  });
}
