/** How the status server answers: whole bodies, never cached, never framed by another site. */
import type { ServerResponse } from 'node:http';

export function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    // The page has buttons: no other site may frame it and trick a click (clickjacking).
    'Content-Security-Policy': "frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
