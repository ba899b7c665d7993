/**
 * The link rules where the connection is made (remote/link-guard.ts), on the real got the client
 * fetches links with and real local servers: the address checked is the one connected to (a DNS
 * that answers a public address to the check and loopback to the connection is refused there),
 * and redirects are followed only to where links may live, at most 3.
 */
import type { LookupAddress } from 'node:dns';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { got } from 'got';
import { afterEach, describe, expect, it } from 'vitest';
import { LinkRefusedError } from '../../src/domain/errors.js';
import { fetchLink } from '../../src/remote/download.js';
import { LinkGuard } from '../../src/remote/link-guard.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** A server on 127.0.0.1 that answers with `handle`; its origin. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A resolver that gives each lookup of any name the next of `answers`. */
function dns(...answers: string[][]) {
  let n = 0;
  return ((_host: string, _options: unknown, callback: (e: null, a: LookupAddress[]) => void) => {
    const addresses = answers[Math.min(n++, answers.length - 1)]!;
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as never;
}

async function refusal(promise: Promise<unknown>): Promise<LinkRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LinkRefusedError);
  return error as LinkRefusedError;
}

describe('the link guard on a real connection', () => {
  it('checks the address connected to: a second DNS answer pointing at loopback is refused', async () => {
    const guard = new LinkGuard({
      origins: null,
      resolve: dns(['93.184.216.34'], ['127.0.0.1']),
    });
    const link = 'https://files.example-storage.test/a.pdf';
    // What a look before the fetch would see: a public address.
    expect(await guard.judge(link)).toBeNull();
    const dest = path.join(tempDir(), 'a.pdf');

    const error = await refusal(fetchLink(got, guard, link, dest));

    expect(error.rule).toBe('private-address');
    expect(error.address).toBe('127.0.0.1');
    expect(error.message).toContain('https://files.example-storage.test');
  });

  it('refuses a host one of whose addresses is private, whatever the others', async () => {
    const guard = new LinkGuard({ origins: null, resolve: dns(['93.184.216.34', '10.0.0.7']) });

    const error = await refusal(
      fetchLink(got, guard, 'https://files.example-storage.test/a', path.join(tempDir(), 'a')),
    );

    expect(error).toMatchObject({ rule: 'private-address', address: '10.0.0.7' });
  });

  it('follows a redirect to another listed origin, and refuses one elsewhere with the host', async () => {
    const secret = await serve((_req, res) => res.end('<html>status page, csrf token</html>'));
    const files = await serve((_req, res) => res.end('%PDF-1.4 the file'));
    let target = `${files}/a.pdf`;
    const first = await serve((_req, res) => res.writeHead(302, { location: target }).end());
    const guard = new LinkGuard({ origins: [first, files] });
    const dest = path.join(tempDir(), 'a.pdf');

    await fetchLink(got, guard, `${first}/x`, dest);
    expect(readFileSync(dest, 'utf8')).toBe('%PDF-1.4 the file');

    target = `${secret}/`;
    const other = path.join(tempDir(), 'b.pdf');
    const error = await refusal(fetchLink(got, guard, `${first}/x`, other));
    expect(error.rule).toBe('not-listed');
    expect(error.message).toContain(secret);
    expect(error.message).toContain(`redirected from ${first}`);
    expect(existsSync(other) ? readFileSync(other, 'utf8') : '').toBe('');
  });

  it('follows at most 3 redirects', async () => {
    let hops = 0;
    const loop = await serve((req, res) => {
      hops++;
      res.writeHead(302, { location: `${req.url}x` }).end();
    });
    const guard = new LinkGuard({ origins: [loop] });

    const error = await refusal(fetchLink(got, guard, `${loop}/`, path.join(tempDir(), 'c')));

    expect(error.rule).toBe('redirects');
    expect(hops).toBe(4);
  });
});
