/**
 * Injected faults, drawn from a seeded generator so a chaos run repeats: 5xx answers, 429s,
 * connection resets, truncated downloads (link host only), added latency, and answers lost after
 * a write was carried out. Each kind has a probability from 0 to 1 per request; the admin API
 * changes them while the simulator runs.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SimClock } from './clock.js';
import { errorReply, sendReply } from './http-kit.js';
import type { SimProfile } from './profile.js';
import { type Random, seededRandom } from './random.js';
import { SimError } from './sim-error.js';

export interface FaultOptions {
  /** Answer 500, 502 or 503. */
  readonly serverError?: number;
  /** Answer 429 with `Retry-After: 1`, whatever the rate. */
  readonly tooManyRequests?: number;
  /** Destroy the connection without an answer. */
  readonly reset?: number;
  /**
   * A write (POST, PUT, PATCH, DELETE) is carried out, then its answer lost: a 5xx or a reset
   * instead of the success. The client cannot tell it from a write never applied.
   */
  readonly lostAnswer?: number;
  /** Link host: send half the bytes of a download, then close. */
  readonly truncatedDownload?: number;
  /** Delay added before answering, with `latencyProbability` (default 1 when latencyMs is set). */
  readonly latencyMs?: number;
  readonly latencyProbability?: number;
  /** Link host: send each download at this many bytes a second (a slow line). */
  readonly linkBytesPerSecond?: number;
  /**
   * Upload file names read as latin1 (`Résumé.pdf` stored as `RÃ©sumÃ©.pdf`), as a service that
   * ignores the UTF-8 of a multipart name would; not a probability, every upload.
   */
  readonly latin1UploadNames?: boolean;
  /**
   * Upload file names cleaned, each space stored as `_` (`Annual Return.pdf` stored as
   * `Annual_Return.pdf`), as a service that makes names safe for its own storage would; every
   * upload.
   */
  readonly cleanedUploadNames?: boolean;
  /** Seed of the fault generator; the same seed and requests give the same faults. */
  readonly seed?: number;
  /**
   * Routes that always fail, by the simulator's template without `/cas` (e.g.
   * `/documents/statusTypes`), with the status they answer: a route broken on the service.
   */
  readonly routes?: Readonly<Record<string, number>>;
  /**
   * Routes that answer late, by the same template, with the delay in ms: a slow listing, a
   * details answer that arrives while the world moves on.
   */
  readonly routeLatencyMs?: Readonly<Record<string, number>>;
}

export type FaultOutcome = 'handled' | 'truncate' | null;

const SERVER_ERRORS = [500, 502, 503] as const;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class Faults {
  private options: FaultOptions = {};
  private random: Random = seededRandom(1);
  /** Writes carried out whose answer was lost, since the simulator started. */
  lostAnswers = 0;
  /** Writes whose answer is lost the next time one is carried out, whatever the options say. */
  private readonly armed: { method: string; route: string }[] = [];
  /** Documents whose next details read answers 503, once, whatever the options say. */
  private readonly detailsToFail = new Set<string>();

  constructor(
    private readonly clock: SimClock,
    options: FaultOptions = {},
    /** How its error bodies are written (profile.ts). */
    private readonly profile: SimProfile = 'api',
  ) {
    this.set(options);
  }

  set(options: FaultOptions): void {
    this.options = { ...options };
    this.random = seededRandom(options.seed ?? 1);
  }

  get(): FaultOptions {
    return { ...this.options };
  }

  /**
   * Decides this request's fault; answers it (or resets it) unless it is a download truncation.
   * `template` is the route the request matched, null for none or the link host.
   */
  async before(
    req: IncomingMessage,
    res: ServerResponse,
    linkHost: boolean,
    template: string | null = null,
  ): Promise<FaultOutcome> {
    const o = this.options;
    const id = this.#detailsOf(req, template);
    const broken =
      id !== null && this.detailsToFail.delete(id)
        ? 503
        : template === null
          ? undefined
          : o.routes?.[template];
    if (broken !== undefined) {
      const error = new SimError(broken, 'injected_fault', `Injected failure of ${template}`);
      sendReply(res, errorReply(error, undefined, this.profile), this.clock.nowMs());
      return 'handled';
    }
    const late = template === null ? undefined : o.routeLatencyMs?.[template];
    if (late) await sleep(late);
    if (o.latencyMs && this.roll(o.latencyProbability ?? 1)) await sleep(o.latencyMs);
    if (this.roll(o.reset)) {
      res.socket?.destroy();
      return 'handled';
    }
    if (this.roll(o.serverError)) {
      const status = SERVER_ERRORS[Math.floor(this.random() * SERVER_ERRORS.length)]!;
      sendReply(
        res,
        errorReply(
          new SimError(status, 'injected_fault', 'Injected server error'),
          undefined,
          this.profile,
        ),
        this.clock.nowMs(),
      );
      return 'handled';
    }
    if (this.roll(o.tooManyRequests)) {
      const error = new SimError(429, 'rate_limited', 'Injected rate limit');
      sendReply(res, errorReply(error, { 'Retry-After': '1' }, this.profile), this.clock.nowMs());
      return 'handled';
    }
    return linkHost && this.roll(o.truncatedDownload) ? 'truncate' : null;
  }

  /**
   * The answer of the next `method` request to a route whose template ends with `route` (e.g.
   * `POST`, `/documents/{documentId}/statuses`) is lost once it is carried out; kept until one
   * comes, through `set` too.
   */
  loseNextAnswer(method: string, route: string): void {
    this.armed.push({ method, route });
  }

  /** The next read of this document's details answers 503, once; healing keeps it armed. */
  failNextDetails(documentId: string): void {
    this.detailsToFail.add(documentId);
  }

  /** The document whose details `req` reads, or null for any other request. */
  #detailsOf(req: IncomingMessage, template: string | null): string | null {
    if (req.method !== 'GET' || !template?.endsWith('/documents/{documentId}')) return null;
    const last = (req.url ?? '').split('?')[0]!.split('/').at(-1);
    return last ? decodeURIComponent(last) : null;
  }

  /**
   * After a write to `template` was carried out with `status`: loses its answer (a 5xx or a reset
   * instead) as `lostAnswer` or an armed loss says. Only a success is lost: a refusal applied
   * nothing.
   */
  after(req: IncomingMessage, res: ServerResponse, status: number, template: string): FaultOutcome {
    const method = req.method ?? '';
    if (!WRITES.has(method) || status >= 300) return null;
    const arm = this.armed.findIndex((a) => a.method === method && template.endsWith(a.route));
    if (arm >= 0) this.armed.splice(arm, 1);
    else if (!this.roll(this.options.lostAnswer)) return null;
    this.lostAnswers++;
    if (this.random() < 0.5) {
      res.socket?.destroy();
      return 'handled';
    }
    const code = SERVER_ERRORS[Math.floor(this.random() * SERVER_ERRORS.length)]!;
    const error = new SimError(code, 'injected_fault', 'Injected failure after the write');
    sendReply(res, errorReply(error, undefined, this.profile), this.clock.nowMs());
    return 'handled';
  }

  private roll(probability: number | undefined): boolean {
    return probability !== undefined && probability > 0 && this.random() < probability;
  }
}
