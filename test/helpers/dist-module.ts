import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * URL of a compiled module under dist/, for child processes (Node 20 cannot run .ts). Like
 * run-cli.ts, it needs `npm run build` first; `npm test` does that.
 */
export function distModuleUrl(relative: string): string {
  const file = path.resolve(import.meta.dirname, '../../dist', relative);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return pathToFileURL(file).href;
}
