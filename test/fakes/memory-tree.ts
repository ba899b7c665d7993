/**
 * The file tree behind MemoryLocalStore: `/`-separated keys relative to the root, folders and
 * files. Its public `user*` methods play the person at the folder in tests; every key goes through
 * the same resolveInside guard as the fs adapter, so a hostile path fails here too.
 */
import path from 'node:path';
import { resolveInside } from '../../src/local/resolve-inside.js';

export type Node = { kind: 'dir' } | { kind: 'file'; data: Buffer; mtimeMs: number };

const ROOT = '/memory-root';

export class MemoryTree {
  readonly #nodes = new Map<string, Node>([['', { kind: 'dir' }]]);
  readonly #nowMs: () => number;

  constructor(nowMs: () => number) {
    this.#nowMs = nowMs;
  }

  userWrite(relPath: string, data: string | Uint8Array, mtimeMs = this.#nowMs()): void {
    const key = this.key(relPath);
    this.mkdirs(path.posix.dirname(key));
    this.#nodes.set(key, { kind: 'file', data: Buffer.from(data), mtimeMs });
  }

  userMkdir(relPath: string): void {
    this.mkdirs(this.key(relPath));
  }

  userRename(from: string, to: string): void {
    const source = this.key(from);
    const target = this.key(to);
    for (const [key, node] of [...this.#nodes]) {
      if (key !== source && !key.startsWith(`${source}/`)) continue;
      this.#nodes.delete(key);
      this.#nodes.set(target + key.slice(source.length), node);
    }
  }

  userRemove(relPath: string): void {
    const key = this.key(relPath);
    for (const k of [...this.#nodes.keys()]) {
      if (k === key || k.startsWith(`${key}/`)) this.#nodes.delete(k);
    }
  }

  read(relPath: string): Buffer | null {
    const node = this.#nodes.get(this.key(relPath));
    return node?.kind === 'file' ? node.data : null;
  }

  exists(relPath: string): boolean {
    return this.#nodes.has(this.key(relPath));
  }

  list(relPath: string): string[] {
    return this.children(this.key(relPath)).sort();
  }

  protected node(relPath: string): Node | undefined {
    return this.#nodes.get(this.key(relPath));
  }

  protected setNode(relPath: string, node: Node): void {
    this.#nodes.set(this.key(relPath), node);
  }

  protected key(relPath: string): string {
    return path.posix.relative(ROOT, resolveInside(ROOT, relPath));
  }

  protected children(relPath: string): string[] {
    const dirKey = this.key(relPath);
    const prefix = dirKey === '' ? '' : `${dirKey}/`;
    const names: string[] = [];
    for (const key of this.#nodes.keys()) {
      if (key.startsWith(prefix) && key !== dirKey && !key.slice(prefix.length).includes('/')) {
        names.push(key.slice(prefix.length));
      }
    }
    return names;
  }

  protected mkdirs(relPath: string): void {
    const dirKey = this.key(relPath);
    const parts = dirKey === '' ? [] : dirKey.split('/');
    for (let i = 1; i <= parts.length; i += 1) {
      const key = parts.slice(0, i).join('/');
      if (!this.#nodes.has(key)) this.#nodes.set(key, { kind: 'dir' });
    }
  }
}
