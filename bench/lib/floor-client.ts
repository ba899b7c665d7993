/**
 * The floor: the least code that makes the same requests as docsync — plain `fetch`, no
 * validation, no retries, no state — behind the same concurrency limits (4 API requests, 4 link
 * downloads at once). What docsync spends beyond it is the cost of being docsync.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import type { SimProcess } from './sim-process.js';

/** A counting semaphore: at most `limit` tasks at once, like docsync's request queue. */
export function limiter(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

export interface Owner {
  readonly kind: 'company' | 'trust';
  readonly id: string;
}

export const ownerPath = (o: Owner) => `${o.kind === 'company' ? 'companies' : 'trusts'}/${o.id}`;

export class FloorClient {
  readonly api: ReturnType<typeof limiter>;
  readonly links: ReturnType<typeof limiter>;
  #token = '';
  /** Set: API GETs take `node:http` on this keep-alive agent instead of `fetch` (info only). */
  readonly #agent: http.Agent | null;

  constructor(
    private readonly sim: SimProcess,
    concurrency = 4,
    wire: 'fetch' | 'node:http' = 'fetch',
  ) {
    this.api = limiter(concurrency);
    this.links = limiter(concurrency);
    this.#agent = wire === 'node:http' ? new http.Agent({ keepAlive: true }) : null;
  }

  get token(): string {
    return this.#token;
  }

  async authorise(): Promise<void> {
    const refresh = await this.sim.mintRefreshToken();
    const basic = Buffer.from(`${this.sim.clientId}:${this.sim.clientSecret}`).toString('base64');
    const url = `${this.sim.apiUrl}/oauth/token?grant_type=refresh_token&refresh_token=${encodeURIComponent(refresh)}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}` },
    });
    this.#token = ((await response.json()) as { access_token: string }).access_token;
  }

  get(pathAndQuery: string): Promise<any> {
    if (this.#agent) return this.api(() => this.#nodeGet(pathAndQuery, this.#agent!));
    return this.api(async () => {
      const response = await fetch(`${this.sim.apiUrl}${pathAndQuery}`, {
        headers: { authorization: `Bearer ${this.#token}`, accept: 'application/json' },
      });
      if (!response.ok) throw new Error(`GET ${pathAndQuery}: ${response.status}`);
      return response.json();
    });
  }

  #nodeGet(pathAndQuery: string, agent: http.Agent): Promise<any> {
    const headers = { authorization: `Bearer ${this.#token}`, accept: 'application/json' };
    return new Promise((resolve, reject) => {
      http
        .get(`${this.sim.apiUrl}${pathAndQuery}`, { agent, headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            if (response.statusCode !== 200)
              reject(new Error(`GET ${pathAndQuery}: ${response.statusCode}`));
            else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          });
        })
        .on('error', reject);
    });
  }

  /** Every item of a paged list (limit 500, as docsync pages). */
  async list(route: string, key: string, query = ''): Promise<any[]> {
    const items: any[] = [];
    for (let offset = 0; ; ) {
      const page = await this.get(`${route}?offset=${offset}&limit=500${query}`);
      const got = page[key] as any[];
      items.push(...got);
      offset += got.length;
      if (got.length === 0 || offset >= page.total) return items;
    }
  }

  /** Link, then the bytes streamed to a temp file, hashed, fsynced, renamed, folder fsynced. */
  async download(owner: Owner, docId: string, attachmentId: string, tmp: string, dest: string) {
    const link = await this.get(
      `/${ownerPath(owner)}/documents/${docId}/attachments/${encodeURIComponent(attachmentId)}/download`,
    );
    await this.links(async () => {
      const response = await fetch(link.url as string);
      if (!response.ok || !response.body) throw new Error(`link: ${response.status}`);
      const temp = path.join(tmp, `${randomUUID()}.part`);
      const hash = createHash('sha256');
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(
        Readable.fromWeb(response.body as ReadableStream),
        tap,
        createWriteStream(temp, { flush: true }),
      );
      await rename(temp, dest);
      await fsyncDir(path.dirname(dest));
    });
  }
}

/** The same durable write docsync does: temp, fsync, rename, fsync of the folder. */
export async function writeDurable(tmp: string, dest: string, text: string): Promise<void> {
  const temp = path.join(tmp, `${randomUUID()}.part`);
  const handle = await open(temp, 'wx');
  await handle.write(text);
  await handle.sync();
  await handle.close();
  await rename(temp, dest);
  await fsyncDir(path.dirname(dest));
}

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  await handle.sync();
  await handle.close();
}

export async function mkdirp(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}
