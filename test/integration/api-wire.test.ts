/**
 * The API's wire (got) against a real local server whose every misbehaviour is scripted: what
 * the client sees when an answer never comes, stops halfway, redirects, or arrives in pieces.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { got } from 'got';
import { afterEach, describe, expect, it } from 'vitest';
import { gotWire } from '../../src/remote/api-wire.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server on port 0 answering with `handler`; counts the TCP connections it accepted. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const stats = { connections: 0 };
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', () => stats.connections++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stats };
}

const get = (url: string) => ({ method: 'GET' as const, url, headers: {} });

describe('API wire (got)', () => {
  it('sends a JSON body with its type and length, and reads back status, headers and body', async () => {
    const seen: { method?: string; agent?: string; type?: string; length?: string; body?: string } =
      {};
    const { url } = await serve((req, res, body) => {
      Object.assign(seen, {
        method: req.method,
        agent: req.headers['user-agent'],
        type: req.headers['content-type'],
        length: req.headers['content-length'],
        body,
      });
      // A multi-byte character split across two writes must still decode whole.
      const answer = Buffer.from(JSON.stringify({ name: 'Smith – Ōtaki Trust' }));
      const cut = answer.indexOf(0xe2) + 1;
      res.writeHead(201, {
        'content-type': 'application/json',
        date: 'Sat, 21 Nov 2026 10:00:00 GMT',
      });
      res.write(answer.subarray(0, cut));
      setTimeout(() => res.end(answer.subarray(cut)), 20);
    });
    const transport = gotWire(got, { timeoutMs: 5_000 });
    const json = JSON.stringify({ statusTypeId: 'ü' });
    const response = await transport({ ...get(`${url}/a`), method: 'POST' as const, json });

    expect(seen).toEqual({
      method: 'POST',
      agent: 'docsync',
      type: 'application/json',
      length: String(Buffer.byteLength(json)),
      body: json,
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers.date).toBe('Sat, 21 Nov 2026 10:00:00 GMT');
    expect(JSON.parse(response.body)).toEqual({ name: 'Smith – Ōtaki Trust' });
  });

  it('keeps one connection open across requests instead of connecting for each', async () => {
    const { url, stats } = await serve((_req, res) => res.end('{}'));
    const transport = gotWire(got, { timeoutMs: 5_000 });
    for (let i = 0; i < 5; i++) await transport(get(`${url}/x?offset=${i}`));
    expect(stats.connections).toBe(1);
  });

  it('returns a redirect as an answer and never follows it (the token would go along)', async () => {
    const elsewhere = createServer((_req, res) => res.end('{}'));
    let followed = 0;
    elsewhere.on('request', () => followed++);
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/steal`;
    try {
      const { url } = await serve((_req, res) => res.writeHead(302, { location: target }).end());
      const response = await gotWire(got, { timeoutMs: 5_000 })({
        ...get(`${url}/a`),
        headers: { authorization: 'Bearer secret' },
      });
      expect(response.statusCode).toBe(302);
      expect(followed).toBe(0);
    } finally {
      elsewhere.close();
    }
  });

  it.each([
    ['no answer at all', (_res: ServerResponse) => {}],
    [
      'headers, then a body that stalls',
      (res: ServerResponse) => res.writeHead(200).write('{"a":'),
    ],
  ])('gives up with ETIMEDOUT on %s', async (_name, stall) => {
    const { url } = await serve((_req, res) => stall(res));
    const started = Date.now();
    const error = await gotWire(got, { timeoutMs: 200 })(get(`${url}/slow`)).catch((e) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('ETIMEDOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('rejects an answer cut short by a reset instead of returning half a body', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"documents": [');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await gotWire(got, { timeoutMs: 5_000 })(get(`${url}/cut`)).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });

  it('reports a refused connection with its code, so a POST can be known unsent', async () => {
    const { url } = await serve((_req, res) => res.end());
    server!.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const error = await gotWire(got, { timeoutMs: 5_000 })(get(`${url}/gone`)).catch((e) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});
