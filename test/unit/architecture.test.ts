/**
 * The dependency direction of docs/architecture.md, checked on every import of src/, so that it
 * stays true: the domain imports nothing outside itself, the engine knows ports (and the state's
 * types) but no adapter, and only the commands reach the composition root. A new import that
 * breaks a line fails here; if the line should move, move it in docs/architecture.md too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * What each layer may import besides itself: a layer name allows all of it, a path one module.
 * `type:` allows type-only imports of that layer (shapes, not behaviour).
 */
const ALLOWED: Record<string, readonly string[]> = {
  domain: [],
  log: [],
  // The route table and the shapes' names, so a corrected path (`service.routes`) or a shape
  // (`service.shapes`) is checked when the file loads.
  config: ['domain', 'remote/routes', 'remote/shapes'],
  simulator: ['domain'],
  local: ['domain'],
  remote: ['domain'],
  // The state implements two ports it stores for: the meta file cache and the token store.
  state: ['domain', 'local/local-store', 'local/meta-file-cache', 'type:remote'],
  engine: [
    'domain',
    'type:log',
    // engine-settings.ts maps the configuration to the engine's settings, once.
    'config/schema',
    'local/local-store',
    'remote/remote-store',
    // The port's error: the engine decides on its code (outcome unknown, 404, 4xx).
    'remote/api-error',
    // The lane a request is queued in: a push takes the first, whatever sync makes it.
    'remote/request-lane',
    'type:state',
    // Whether an error is the state database failing: the engine must not record it as an item's.
    'state/state-failure',
    // The key an item in error is stored under, so one cycle can tell which it found again.
    'state/problem-repo',
  ],
  // The operator's actions (conflicts, trash, held deletes): the CLI and the status page call them.
  // Each change to an entity takes its lease (engine/entity-locks.ts), the lock's type only.
  operator: ['domain', 'local', 'state', 'type:engine/entity-locks'],
  // The actions' form bodies are read with the webhook receiver's bounded reader.
  web: ['domain', 'config', 'log', 'state', 'operator', 'triggers/read-body'],
  triggers: ['domain', 'config', 'log', 'state', 'web/listen', 'type:web'],
  daemon: [
    'domain',
    'config',
    'log',
    'engine',
    'local',
    // A person's decisions handed over by a command are carried out by the daemon.
    'operator',
    'remote/api-error',
    'remote/request-lane',
    'state',
    'triggers',
    'web',
  ],
  commands: ['*'],
  'program.ts': ['commands', 'domain'],
  // The process's own terminal, which the executable hands the program.
  'cli.ts': ['program.ts', 'commands/terminal'],
  'compose.ts': ['*'],
};

interface Import {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(path.join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [path.join(dir, e.name)]
        : [],
  );
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const m of text.matchAll(/^(?:import|export)(\s+type)?\s[^;]*?from\s+'(\.[^']+)'/gms)) {
    const target = path.relative(SRC, path.resolve(path.dirname(file), m[2]!)).replace(/\.js$/, '');
    found.push({ from: path.relative(SRC, file), to: target, typeOnly: m[1] !== undefined });
  }
  return found;
}

const layerOf = (relPath: string) =>
  relPath.includes('/') ? relPath.split('/')[0]! : `${relPath.replace(/\.js$|\.ts$/, '')}.ts`;

function allowed(imp: Import): boolean {
  const from = layerOf(imp.from);
  const to = layerOf(`${imp.to}.ts`);
  if (from === to) return true;
  const rules = ALLOWED[from];
  if (rules === undefined) return false;
  return rules.some((rule) => {
    if (rule === '*') return true;
    const typeRule = rule.startsWith('type:');
    const target = typeRule ? rule.slice(5) : rule;
    if (typeRule && !imp.typeOnly) return false;
    return target === to || target === imp.to;
  });
}

describe('architecture: the direction of imports (docs/architecture.md)', () => {
  const files = sources(SRC);
  const imports = files.flatMap(importsOf);

  it('knows every layer of src/, and reads their imports', () => {
    const layers = new Set(files.map((f) => layerOf(path.relative(SRC, f))));
    expect([...layers].sort()).toEqual(Object.keys(ALLOWED).sort());
    expect(imports.length).toBeGreaterThan(300);
  });

  it('has no import against the direction', () => {
    const against = imports
      .filter((i) => !allowed(i))
      .map((i) => `${i.from} → ${i.to}${i.typeOnly ? ' (type)' : ''}`);
    expect(against).toEqual([]);
  });

  it('catches a wrong import (the check itself can fail)', () => {
    expect(allowed({ from: 'domain/plan-sync.ts', to: 'state/state-store', typeOnly: true })).toBe(
      false,
    );
    expect(
      allowed({ from: 'engine/plan-entity.ts', to: 'local/fs-local-store', typeOnly: false }),
    ).toBe(false);
    expect(allowed({ from: 'engine/plan-entity.ts', to: 'state/base-repo', typeOnly: false })).toBe(
      false,
    );
    expect(allowed({ from: 'daemon/daemon.ts', to: 'compose', typeOnly: true })).toBe(false);
  });
});

describe('architecture: one writer of the agreed state (docs/state.md)', () => {
  /** Calls that change the base or move a cursor, by file relative to src/. */
  const writers = () =>
    sources(SRC).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const calls = text.match(/\bbase\.(?:put|remove|removeOwner)\(|\bcursors\.advance\(/g);
      return calls ? [path.relative(SRC, file)] : [];
    });

  it('changes the base and moves cursors in the state store alone, through commitAgreed', () => {
    expect(writers()).toEqual(['state/state-store.ts']);
    const store = readFileSync(path.join(SRC, 'state/state-store.ts'), 'utf8');
    const outsideCommit = store
      .replace(/commitAgreed\([\s\S]*?\n {2}\}\n/, '')
      .replace(/forgetEntity\([\s\S]*?\n {2}\}\n/, '');
    expect(outsideCommit).not.toMatch(/\bbase\.(?:put|remove)\(|\bcursors\.advance\(/);
  });

  it("is reached from the engine through commit-agreed.ts alone, which takes the entity's lease", () => {
    const callers = sources(SRC).flatMap((file) => {
      const relative = path.relative(SRC, file);
      if (relative.startsWith('state/')) return [];
      return /\.(?:commitAgreed|forgetEntity)\(/.test(readFileSync(file, 'utf8')) ? [relative] : [];
    });
    expect(callers).toEqual(['engine/commit-agreed.ts']);
  });
});
