/**
 * Starts an HTTP server listening and says where, for the receiver and the status server alike.
 * Port 0 picks a free port (tests); the URL shows the port actually taken.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function listen(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shown}:${address.port}`);
    });
  });
}
