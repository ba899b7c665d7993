/**
 * `docsync check` on `status.listen`: can the status listener take its address? The check
 * listens there for a moment and lets go. An address in use is asked whether docsync's status
 * page answers there (`GET /healthz`, JSON with its `status`): then a running daemon holds it,
 * as it should; anything else in the way keeps the daemon from starting, which is a failure.
 */
import { createServer } from 'node:http';
import { type Got, got } from 'got';
import type { Config } from '../config/schema.js';
import { type CheckLine, fail, ok } from '../domain/check-lines.js';
import { USER_AGENT } from '../remote/api-wire.js';
import { listen } from '../web/listen.js';

const TOPIC = 'status listen';

export async function checkStatusListen(config: Config, client: Got = got): Promise<CheckLine[]> {
  if (!config.status.enabled) return [];
  const { host, port } = config.status.listen;
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const server = createServer((_req, res) => res.end());
  try {
    await listen(server, host, port, 'status.listen');
  } catch (error) {
    const code = (error as { cause?: NodeJS.ErrnoException }).cause?.code;
    if (code === 'EADDRINUSE') return [await heldBy(client, address)];
    return [
      fail(
        TOPIC,
        (error as Error).message,
        'Correct status.listen, or set status.enabled to false.',
        { address },
      ),
    ];
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return [ok(TOPIC, `${address} is free for the status page (taken for a moment and let go)`)];
}

/** Whose the address in use is: a running docsync's status page answers `/healthz`. */
async function heldBy(client: Got, address: string): Promise<CheckLine> {
  const shown = address.startsWith('0.0.0.0:') ? address.replace('0.0.0.0', '127.0.0.1') : address;
  let status: unknown;
  try {
    const response = await client(`http://${shown}/healthz`, {
      headers: { 'user-agent': USER_AGENT },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: 5_000 },
    });
    status = (JSON.parse(response.body) as { status?: unknown }).status;
  } catch {
    status = undefined;
  }
  if (typeof status === 'string') {
    return ok(
      TOPIC,
      `${address} is held by a running docsync: its status page answers there (/healthz: ${status})`,
      { address, held: 'docsync' },
    );
  }
  return fail(
    TOPIC,
    `${address} is in use by another program: the daemon could not open its status page there`,
    'Stop what holds it, or set status.listen to a free address (or status.enabled to false).',
    { address, held: 'other' },
  );
}
