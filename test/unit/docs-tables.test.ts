/**
 * The reference tables of docs/ against the code they describe, so neither drifts: the routes
 * (docs/real-service.md) against remote/routes.ts, the settings (docs/configuration.md)
 * against the configuration's schema.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { configSchema } from '../../src/config/schema.js';
import { ROUTES } from '../../src/remote/routes.js';

const doc = (name: string) =>
  readFileSync(path.resolve(import.meta.dirname, '../../docs', name), 'utf8');

/** Every key a configuration file may hold, dotted, from the schema itself. */
function schemaKeys(schema: z.core.$ZodType, prefix = ''): string[] {
  const def = schema._zod.def as unknown as {
    type: string;
    shape?: Record<string, z.core.$ZodType>;
    innerType?: z.core.$ZodType;
    in?: z.core.$ZodType;
  };
  if (def.type === 'object' && def.shape) {
    return Object.entries(def.shape).flatMap(([key, child]) =>
      schemaKeys(child, `${prefix}${key}.`),
    );
  }
  const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  // A listen address is a string the schema parses into { host, port }: one key.
  if (inner && def.type !== 'pipe') return schemaKeys(inner, prefix);
  return [prefix.slice(0, -1)];
}

describe('docs/real-service.md: the route table', () => {
  it('lists every route by the name service.routes takes, with its built-in path and source', () => {
    const rows = [
      ...doc('real-service.md').matchAll(
        /^\| `(\w+)` \| `(GET|POST|DELETE) ([^`]+)` \| (.+) \|$/gm,
      ),
    ];
    const listed = Object.fromEntries(
      rows.map(([, name, method, routePath, source]) => [
        name,
        { method, path: routePath, source: source!.replace(/[*[\]]/g, '') },
      ]),
    );
    const table = Object.fromEntries(
      Object.entries(ROUTES).map(([name, r]) => [
        name,
        { method: r.method, path: r.path, source: r.source },
      ]),
    );
    expect(listed).toEqual(table);
  });
});

describe('docs/configuration.md: the settings table', () => {
  it('has a row for every key of the schema, and for no other', () => {
    const text = doc('configuration.md');
    const table = text.slice(text.indexOf('| Key | Meaning | Default |'));
    const documented = [...table.matchAll(/^\| ([^|]+) \|/gm)]
      .flatMap(([, cell]) => [...cell!.matchAll(/`([a-zA-Z.]+)`/g)].map((m) => m[1]!))
      .sort();

    expect(documented).toEqual(schemaKeys(configSchema).sort());
  });
});
