/**
 * `.docsync-root`, the file that says "this folder is a synced store" (its absence stops a
 * cycle, decision row 50's rail). Its first line says when the first sync made it; a second
 * line, `service <url>`, names the service it is synced with, so a folder of staging's is
 * refused under production's configuration even with a new state database
 * (domain/service-identity.ts). A marker written before docsync named the service has one line.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { MARKER_FILE } from './local-store.js';

const SERVICE_LINE = /^service (\S+)$/m;

/** A new marker: made now, for `service` (when known). */
export function markerText(now: Date, service: string | undefined): string {
  return withService(`docsync root, first synced ${now.toISOString()}\n`, service);
}

/** An existing marker's text with the service line added, when it has none. */
export function withService(text: string, service: string | undefined): string {
  if (service === undefined || serviceInMarker(text) !== null) return text;
  return `${text.endsWith('\n') ? text : `${text}\n`}service ${service}\n`;
}

/** The service a marker's text names; null when it names none. */
export function serviceInMarker(text: string): string | null {
  return SERVICE_LINE.exec(text)?.[1] ?? null;
}

/** The marker's text under `root`; null when there is none to read. */
export async function readMarker(root: string): Promise<string | null> {
  return readFile(path.join(root, MARKER_FILE), 'utf8').catch(() => null);
}
