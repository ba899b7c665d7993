/**
 * Attachment bytes in and out. Uploads stream a file as multipart from the descriptor its
 * source opened and checked, anew for each attempt (upload-form.ts; nothing is held whole in
 * memory, and a file that changes while it is read fails the read instead of sending a torn
 * copy). Downloads ask the API for a link, then fetch it on a separate, auth-less got, asking
 * for a fresh link when one expires.
 */
import type { Got } from 'got';
import PQueue from 'p-queue';
import { type Clock, waitOn } from '../domain/clock.js';
import { LinkRefusedError, RunStoppedError } from '../domain/errors.js';
import type { OwnerRef, RemoteAttachment } from '../domain/types.js';
import type { OpenedUpload, UploadSource } from '../domain/upload-source.js';
import { ApiError } from './api-error.js';
import { fetchLink } from './download.js';
import type { LinkGuard } from './link-guard.js';
import type { DownloadResult } from './remote-store.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay } from './retry-delay.js';
import { parse } from './schemas.js';
import { Redirect, type ServiceHttp } from './service-http.js';
import { redirectLink } from './shapes.js';
import { UploadForm } from './upload-form.js';

export interface TransfersOptions {
  readonly http: ServiceHttp;
  /** Got for link hosts: no auth hook, no bearer token, ever. */
  readonly linkHttp: Got;
  /** Where links may point (service.linkHosts, docsync's own ports): checked on each fetch. */
  readonly linkGuard: LinkGuard;
  readonly concurrency: number;
  readonly retry?: RetryPolicy;
  readonly random?: () => number;
  /** What a retry waits out its delay on. */
  readonly time: Clock;
  /** The API queue's stop (request-queue.ts): downloads from links stop with it, at once. */
  readonly stop?: { readonly stopping: AbortSignal };
}

const NEVER = new AbortController().signal;

const LINK = 'GET <download link>';

export class Transfers {
  readonly #o: TransfersOptions;
  /** Link downloads do not count against the API's rate, only against our bandwidth. */
  readonly #linkQueue: PQueue;

  constructor(options: TransfersOptions) {
    this.#o = options;
    this.#linkQueue = new PQueue({ concurrency: options.concurrency });
  }

  /**
   * Sends the file `source` opens. A retry opens it again, so a file swapped between two
   * attempts is checked as the first was; each descriptor is closed once its attempt is over.
   */
  async upload(
    owner: OwnerRef,
    documentId: string,
    source: UploadSource,
    fileName: string,
  ): Promise<RemoteAttachment> {
    let opened: OpenedUpload | null = null;
    const release = async () => {
      const last = opened;
      opened = null;
      await last?.close();
    };
    try {
      const body = await this.#o.http.request('uploadAttachment', {
        owner,
        params: { documentId },
        body: async () => {
          await release();
          opened = await source.open();
          return new UploadForm(this.#o.http.shapes.settings.uploadField, opened, fileName);
        },
      });
      return parse.attachment(body, this.#o.http.label('uploadAttachment', owner.kind));
    } finally {
      await release();
    }
  }

  async download(
    owner: OwnerRef,
    documentId: string,
    attachmentId: string,
    dest: string,
  ): Promise<DownloadResult> {
    const policy = this.#o.retry ?? DEFAULT_RETRY_POLICY;
    const random = this.#o.random ?? Math.random;
    for (let attempt = 1; ; attempt++) {
      const body = await this.#o.http.request('attachmentLink', {
        owner,
        params: { documentId, attachmentId },
        redirectAnswers: true,
      });
      const link = readLink(this.#o.http, body, owner.kind);
      const stopping = this.#o.stop?.stopping ?? NEVER;
      try {
        return (await this.#linkQueue.add(() => {
          // Waiting for a free download slot when the run stopped: not started at all.
          if (stopping.aborted)
            throw new RunStoppedError(`${LINK}: not started, docsync is stopping`, false);
          // A download is a read: cut the moment docsync stops, its partial file discarded.
          return fetchLink(this.#o.linkHttp, this.#o.linkGuard, link.url, dest, {
            signal: stopping,
          });
        })) as DownloadResult;
      } catch (error) {
        // Cut: the caller discards the partial file, as after any failed download.
        if (stopping.aborted) throw new RunStoppedError(`${LINK}: cut, docsync is stopping`, false);
        // Refused where it points: a new link would point there too, so none is asked for.
        if (error instanceof LinkRefusedError) throw error.about(`attachment ${attachmentId}`);
        // An expired link answers 403: a new link, at once, is the cure.
        const expired = error instanceof ApiError && (error.status === 403 || error.status === 410);
        if (expired && attempt < policy.maxAttempts) continue;
        const delay = retryDelay(error, attempt, random(), policy);
        if (delay === 0) throw error;
        await waitOn(
          this.#o.time,
          delay,
          stopping,
          () => new RunStoppedError(`${LINK}: not retried, docsync is stopping`, false),
        );
      }
    }
  }
}

/**
 * The link of an `attachmentLink` answer, in any form shapes.ts reads; a redirect's `Location`
 * is fetched like any link, so the link guard judges where it points (link-guard.ts).
 */
function readLink(http: ServiceHttp, body: unknown, kind: OwnerRef['kind']) {
  const label = http.label('attachmentLink', kind);
  if (body instanceof Redirect)
    return http.shapes.link(redirectLink(body.location, body.answeredUrl), label, body.location);
  return http.shapes.linkOfBody(body, label);
}
