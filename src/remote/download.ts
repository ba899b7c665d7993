/**
 * Fetching an attachment's bytes from the link the service hands out. The link host is not the
 * API: it gets its own got instance with no auth hook at all, so the bearer token cannot reach
 * it by any path. The file is streamed to the caller's temp path (never held in memory), its
 * length checked against Content-Length, hashed on the way, and fsynced so the local store can
 * rename it into place durably. Where the link may point is the guard's (link-guard.ts): a refused
 * link, or a redirect to where links may not live, is a LinkRefusedError and never a file.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Got } from 'got';
import { LinkRefusedError, LocalStoreError } from '../domain/errors.js';
import { ApiError } from './api-error.js';
import { type LinkGuard, refusedError } from './link-guard.js';

import type { DownloadResult } from './remote-store.js';

const LINK_ROUTE = 'GET <download link>';

/**
 * `w`, except that a link at `dest` is refused rather than followed: dest is in docsync's own
 * temp or staging folder, where a member of the folder's group could put a link to a file
 * docsync may write (its state, its configuration) under a name it is about to fill.
 */
const WRITE_NOT_THROUGH_LINK =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/**
 * Streams `url` into `dest` (created or truncated). Throws ApiError (403 means expired), or
 * LinkRefusedError before anything is written when the guard refuses the link or a redirect.
 */
export async function fetchLink(
  linkHttp: Got,
  guard: LinkGuard,
  url: string,
  dest: string,
  options: { readonly timeoutMs?: number; readonly signal?: AbortSignal } = {},
): Promise<DownloadResult> {
  const hash = createHash('sha256');
  let bytes = 0;
  let expected: number | undefined;
  const guarded = guard.requestOptions(url);
  let source: ReturnType<Got['stream']> | undefined;
  try {
    const out = (await open(dest, WRITE_NOT_THROUGH_LINK)).createWriteStream({ flush: true });
    source = linkHttp.stream(url, {
      ...guarded,
      // No headers of ours beyond this: the link needs no auth (api.md) and must get none.
      headers: { accept: '*/*' },
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: options.timeoutMs ?? 300_000 },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const request = source;
    source.once('response', (response: { statusCode: number; headers: Record<string, string> }) => {
      // Only a 2xx is the file: a redirect got did not follow (no Location) is not one either.
      if (response.statusCode < 200 || response.statusCode >= 300) {
        request.destroy(
          new ApiError('HTTP_ERROR', `${LINK_ROUTE} answered ${response.statusCode}`, {
            route: LINK_ROUTE,
            status: response.statusCode,
          }),
        );
      }
      const length = response.headers['content-length'];
      expected = length === undefined ? undefined : Number(length);
    });
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    // flush: fsync before close, so the store's rename of this file is durable. The default
    // mode (0666) leaves the permissions to the umask, as for any other program's files: the
    // firm shares this folder, and a download readable only by docsync's user locked them out.
    await pipeline(source, tap, out);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const refused = linkRefusal(error, url);
    if (refused) throw refused;
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new LocalStoreError(
        'DOWNLOAD_THROUGH_LINK',
        `${dest} is a symbolic link: docsync writes no download through a link; nothing was written`,
      );
    }
    throw new ApiError('NETWORK', `${LINK_ROUTE}: ${(error as Error).message}`, {
      route: LINK_ROUTE,
      networkCode: (error as NodeJS.ErrnoException).code,
      cause: error,
    });
  } finally {
    // got takes its listener off `signal` (the request queue's stop, which lives as long as
    // the daemon) only when its stream is destroyed, and one that ended is not: each finished
    // download, with its response, file stream and hash, stayed reachable from the signal
    // until the daemon stopped. Its response is read whole by now.
    source?.destroy();
  }
  if (expected !== undefined && bytes !== expected) {
    throw new ApiError('TRUNCATED', `${LINK_ROUTE}: got ${bytes} of ${expected} bytes`, {
      route: LINK_ROUTE,
    });
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * The refusal inside got's error: got wraps what the lookup and the redirect hook threw, and
 * answers a redirect past `maxRedirects` with its own error.
 */
function linkRefusal(error: unknown, url: string): LinkRefusedError | null {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof LinkRefusedError) return e;
    if ((e as NodeJS.ErrnoException).code === 'ERR_TOO_MANY_REDIRECTS')
      return refusedError({ rule: 'redirects', origin: new URL(url).origin });
  }
  return null;
}
