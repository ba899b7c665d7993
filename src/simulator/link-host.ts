/**
 * The download links of attachments, served by a second listener (another "host"), like a
 * storage service would: no `Authorization` needed, and a link expires `linkTtlSeconds` after
 * it was issued (403 after). Requests that carry any `Authorization` header are counted, so a
 * test can prove the client never leaks its bearer token to the link host. A test can make the
 * service hand out links elsewhere (`linkUrl`: every link is that URL, as a hostile or broken
 * service would) or make the link host redirect (`redirectTo`), to prove where docsync fetches.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Readable, Transform } from 'node:stream';
import { blobStream, generatedBytes, readBlob } from './blobs.js';
import type { SimClock } from './clock.js';
import type { Faults } from './faults.js';
import { errorReply, sendReply } from './http-kit.js';
import type { AttachmentRecord } from './records.js';
import { SimError } from './sim-error.js';
import type { SimStore } from './store.js';

/** Where links lead, when a test changes it (admin `setLinks`); null: the link host's own. */
export interface LinkSettings {
  /** Every link the API hands out is this URL. */
  readonly linkUrl: string | null;
  /** The link host answers each good link with a 302 to this URL. */
  readonly redirectTo: string | null;
}

export interface LinkCounters {
  requests: number;
  withAuthorization: number;
  byStatus: Record<string, number>;
}

const SWEEP_AT = 10_000;

interface Link {
  readonly documentId: number;
  readonly attachment: AttachmentRecord;
  readonly expiresAtMs: number;
}

export class LinkHost {
  readonly counters: LinkCounters = { requests: 0, withAuthorization: 0, byStatus: {} };
  readonly server: Server;
  baseUrl = '';
  ttlSeconds: number;
  settings: LinkSettings = { linkUrl: null, redirectTo: null };
  private readonly links = new Map<string, Link>();

  constructor(
    private readonly store: SimStore,
    private readonly clock: SimClock,
    private readonly faults: Faults,
    ttlSeconds: number,
  ) {
    this.ttlSeconds = ttlSeconds;
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
  }

  issue(documentId: number, attachment: AttachmentRecord): { url: string; expiresAt: string } {
    const token = randomBytes(18).toString('base64url');
    const now = this.clock.nowMs();
    if (this.links.size >= SWEEP_AT) this.sweep(now);
    const expiresAtMs = now + this.ttlSeconds * 1000;
    this.links.set(token, { documentId, attachment, expiresAtMs });
    const expiresAt = new Date(expiresAtMs).toISOString();
    if (this.settings.linkUrl !== null) return { url: this.settings.linkUrl, expiresAt };
    // The name is decoration; a dot-only name would be resolved away as a path segment (even
    // percent-encoded: URL parsers treat %2e%2e as ..), taking the token with it.
    const name = /^\.+$/.test(attachment.name) ? 'download' : encodeURIComponent(attachment.name);
    return { url: `${this.baseUrl}/files/${token}/${name}`, expiresAt };
  }

  /** A benchmark issues a link per download; forget expired ones so memory stays flat. */
  private sweep(now: number): void {
    for (const [token, link] of this.links) if (link.expiresAtMs < now) this.links.delete(token);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.counters.requests += 1;
    if (req.headers.authorization !== undefined) this.counters.withAuthorization += 1;
    const fault = await this.faults.before(req, res, true);
    if (fault === 'handled') return this.count(res);
    const token = /^\/files\/([^/?#]+)/.exec(req.url ?? '')?.[1] ?? '';
    const link = this.links.get(token);
    const error = this.refuse(req, link);
    if (error || !link) {
      sendReply(
        res,
        errorReply(error ?? new SimError(404, 'not_found', 'Unknown link')),
        this.clock.nowMs(),
      );
      return this.count(res);
    }
    if (this.settings.redirectTo !== null) {
      res.writeHead(302, { Location: this.settings.redirectTo, 'Content-Length': '0' }).end();
      return this.count(res);
    }
    const headers = {
      'Content-Type': link.attachment.name.toLowerCase().endsWith('.pdf')
        ? 'application/pdf'
        : 'application/octet-stream',
      'Content-Length': String(link.attachment.blob.size),
      'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(link.attachment.name)}`,
      Date: new Date(this.clock.nowMs()).toUTCString(),
    };
    res.writeHead(200, headers);
    if (fault === 'truncate') await this.sendTruncated(res, link.attachment);
    else if (req.method === 'HEAD') res.end();
    else this.send(blobStream(link.attachment.blob), res);
    this.count(res);
  }

  private refuse(req: IncomingMessage, link: Link | undefined): SimError | null {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return new SimError(405, 'method_not_allowed', 'GET only');
    if (!link) return new SimError(404, 'not_found', 'Unknown link');
    if (this.clock.nowMs() > link.expiresAtMs)
      return new SimError(403, 'link_expired', 'The link has expired');
    const doc = this.store.documents.get(link.documentId);
    if (!doc?.attachments.includes(link.attachment))
      return new SimError(404, 'not_found', 'The attachment is gone');
    return null;
  }

  /** The bytes, at the `linkBytesPerSecond` fault's pace when it is set. */
  private send(bytes: Readable, res: ServerResponse): void {
    const rate = this.faults.get().linkBytesPerSecond;
    if (!rate) {
      bytes.pipe(res);
      return;
    }
    const slow = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        // A tenth of a second's worth at a time, so a cut connection is seen within 100 ms.
        const step = Math.max(1, Math.floor(rate / 10));
        const parts: Buffer[] = [];
        for (let at = 0; at < chunk.length; at += step) parts.push(chunk.subarray(at, at + step));
        const next = () => {
          const part = parts.shift();
          if (part === undefined || res.destroyed) return done();
          this.push(part);
          setTimeout(next, (1000 * part.length) / rate);
        };
        next();
      },
    });
    res.on('close', () => bytes.destroy());
    bytes.pipe(slow).pipe(res);
  }

  /** The `truncatedDownload` fault: fewer bytes than Content-Length, then the socket closes. */
  private async sendTruncated(res: ServerResponse, attachment: AttachmentRecord): Promise<void> {
    const bytes =
      attachment.blob.kind === 'generated'
        ? generatedBytes(attachment.blob)
        : await readBlob(attachment.blob);
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
  }

  private count(res: ServerResponse): void {
    // A reset fault never sends a status line; count it apart from the answers.
    const key =
      !res.headersSent && res.socket?.destroyed !== false ? 'reset' : String(res.statusCode);
    this.counters.byStatus[key] = (this.counters.byStatus[key] ?? 0) + 1;
  }
}
