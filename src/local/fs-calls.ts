/**
 * How a scan lists folders and stats files. On the server's own disk a listing or a stat takes
 * microseconds, and the synchronous call is ~4× cheaper in CPU than a promise through libuv's
 * four threads, where it also queues behind the downloads' fsyncs. On a network share
 * one call can take milliseconds to seconds, and a synchronous walk would stall the webhooks
 * and the status page with it: there every call goes through the thread pool. The
 * store picks one by the filesystem its root is on (filesystem-kind.ts).
 */
import { type Dirent, lstatSync, readdirSync, type Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';

export interface FsCalls {
  readonly mode: 'sync' | 'async';
  names(dir: string): Promise<string[]>;
  entries(dir: string): Promise<Dirent[]>;
  rawNames(dir: string): Promise<Buffer[]>;
  lstat(path: string): Promise<Stats>;
}

/** Synchronous calls, given a promise's shape; the scan yields to the event loop between folders. */
export const syncFsCalls: FsCalls = {
  mode: 'sync',
  names: async (dir) => readdirSync(dir),
  entries: async (dir) => readdirSync(dir, { withFileTypes: true }),
  rawNames: async (dir) => readdirSync(dir, { encoding: 'buffer' }),
  lstat: async (p) => lstatSync(p),
};

export const asyncFsCalls: FsCalls = {
  mode: 'async',
  names: (dir) => readdir(dir),
  entries: (dir) => readdir(dir, { withFileTypes: true }),
  rawNames: (dir) => readdir(dir, { encoding: 'buffer' }),
  lstat: (p) => lstat(p),
};
