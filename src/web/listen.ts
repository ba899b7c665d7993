/**
 * Starts an HTTP server listening and says where, for the receiver and the status server alike.
 * Port 0 picks a free port (tests); the URL shows the port actually taken. An address that
 * cannot be taken (in use, privileged, not this machine's) rejects with the operator's sentence
 * naming `key`, the configuration key of the address.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenFailure } from '../domain/listen-failure.js';

export function listen(server: Server, host: string, port: number, key: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const fail = (error: Error) => reject(listenFailure(key, address, error));
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      const taken = server.address() as AddressInfo;
      const shown = taken.family === 'IPv6' ? `[${taken.address}]` : taken.address;
      resolve(`http://${shown}:${taken.port}`);
    });
  });
}
