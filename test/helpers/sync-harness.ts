/**
 * A whole docsync against a whole simulator, for scenario tests: the simulator on port 0, a real
 * temp folder, a real SQLite state file, the real client and the real folder adapter, and
 * `runCycle` called directly (fast; the CLI child process is for tests of exit codes). Files
 * count at once (`settleSeconds: 0`: the scanner's "still settling" check is `age < 0`, never
 * true), so every cycle sees exactly what the test wrote.
 *
 * The simulator speaks the reading named by DOCSYNC_SIM_PROFILE (`api` by default, or
 * `public-docs`: the public pages' shapes and paths); the vitest config runs the scenarios once
 * in each, so every sync scenario proves itself against both readings of the service.
 */

import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach } from 'vitest';
import { REAL_CLOCK } from '../../src/domain/clock.js';
import type { DocumentMeta, OwnerRef } from '../../src/domain/types.js';
import type { EngineDeps, EngineSettings } from '../../src/engine/engine-deps.js';
import { defaultEngineSettings } from '../../src/engine/engine-settings.js';
import { EntityLocks } from '../../src/engine/entity-locks.js';
import { type CycleOptions, type CycleReport, runCycle } from '../../src/engine/run-cycle.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { createRemote, type Remote } from '../../src/remote/create-client.js';
import {
  isSimProfile,
  type SeedOption,
  type SimProfile,
  type Simulator,
  type SimulatorOptions,
  type StateDump,
  startSimulator,
} from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from './cli-config.js';
import { FAST_RETRY } from './remote.js';
import { type CliResult, type RunCliOptions, runCli } from './run-cli.js';
import { useTempDir } from './temp-dir.js';

export type DumpDocument = StateDump['documents'][number];

export interface HarnessOptions {
  /** The firm; default one company and one trust with two documents each. */
  readonly seed?: SeedOption | null;
  readonly sim?: SimulatorOptions;
  readonly settings?: Partial<EngineSettings>;
}

/** One company and one trust, two documents each, two attachments per document. */
export const SMALL_FIRM: SeedOption = {
  companies: 1,
  trusts: 1,
  documentsPerEntity: 2,
  attachmentsPerDocument: 2,
  seed: 7,
};

export interface SyncHarness {
  readonly sim: Simulator;
  readonly state: StateStore;
  readonly client: Remote;
  readonly deps: EngineDeps;
  /** Absolute path of the store root. */
  readonly root: string;
  /** Absolute path of the state file. */
  readonly stateFile: string;
  /**
   * Runs the built CLI (`docsync <args> --config <file>`) on the same folder, state file and
   * service, for tests of exit codes and output. `config` overrides keys of the config file;
   * `run.user` runs it as another user (permissions apply to one, not to root), `run.clock` on
   * a clock of the test's.
   */
  cli(
    args: readonly string[],
    config?: Record<string, unknown>,
    run?: Pick<RunCliOptions, 'user' | 'clock'>,
  ): Promise<CliResult>;
  /** One cycle; a full reconcile (`docsync run --once`) unless told otherwise. */
  sync(options?: Partial<CycleOptions>): Promise<CycleReport>;
  /** The service's state, with the sha256 of every attachment. */
  remote(): Promise<StateDump>;
  remoteDoc(id: string): Promise<DumpDocument | undefined>;
  /** The folder outside `.docsync/`, links left out: relative path → sha256. */
  tree(): Map<string, string>;
  /** What the trash holds: path inside `.docsync/trash/<day>/` → sha256. */
  trash(): Map<string, string>;
  /** Relative path → mtimeMs of every file outside `.docsync/`. */
  mtimes(): Map<string, number>;
  /** The folder whose `.document.json` names `id`; undefined when there is none. */
  documentFolder(id: string): string | undefined;
  /** The entity folder of `owner`, as the state knows it. */
  entityFolder(owner: OwnerRef): string;
  meta(folder: string): DocumentMeta;
  /** Rewrites `.document.json` of `folder` with `change` applied. */
  editMeta(folder: string, change: (meta: DocumentMeta) => DocumentMeta, mtimeMs?: number): void;
  write(relPath: string, data: string | Uint8Array, mtimeMs?: number): void;
  read(relPath: string): Buffer;
  exists(relPath: string): boolean;
  remove(relPath: string): void;
  rename(from: string, to: string): void;
  /** Requests that changed the service (POST, PUT, DELETE) since the last `resetCounters`. */
  writesToService(): Record<string, number>;
  /** All requests by `METHOD route status` since the last `resetCounters`. */
  requests(): Record<string, number>;
  resetCounters(): void;
  /** The owners the firm has, as the service lists them. */
  owners(): Promise<OwnerRef[]>;
}

export const sha256 = (data: string | Uint8Array) =>
  createHash('sha256').update(data).digest('hex');

/** Registers cleanup and returns a factory of harnesses, one per test. */
export function useSyncHarness(): (options?: HarnessOptions) => Promise<SyncHarness> {
  const tempDir = useTempDir('docsync-scenario-');
  const opened: { sim: Simulator; state: StateStore; client: Remote }[] = [];
  afterEach(async () => {
    for (const { sim, state, client } of opened.splice(0)) {
      client.queue.clear();
      state.close();
      await sim.close();
    }
  });
  return async (options = {}) => {
    const dir = tempDir();
    const seed = options.seed === undefined ? SMALL_FIRM : options.seed;
    const sim = await startSimulator({
      rateLimitPerSecond: 0,
      profile: simProfile(),
      ...(seed ? { seed } : {}),
      ...options.sim,
    });
    const stateFile = path.join(dir, 'state', 'docsync.db');
    mkdirSync(path.dirname(stateFile), { recursive: true });
    const state = StateStore.open(stateFile);
    state.tokens.seedRefreshToken(sim.admin.mintRefreshToken());
    const client = createRemote({
      time: REAL_CLOCK,
      // The simulator's link host is plain http on loopback: allowed only when listed.
      links: { hosts: [sim.linkUrl] },
      baseUrl: sim.apiUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      scope: 'cas',
      tokenStore: state.tokens,
      // As docsync itself: the document routes' prefix found on first contact is kept.
      prefixStore: state.settings,
      requestsPerSecond: Number.POSITIVE_INFINITY,
      concurrency: 4,
      retry: FAST_RETRY,
    });
    opened.push({ sim, state, client });
    const root = path.join(dir, 'documents');
    const deps: EngineDeps = {
      remote: client.client,
      local: new FsLocalStore({ root, settleSeconds: 0, metaCache: state.metaFiles }),
      state,
      logger: pino({ level: 'silent' }),
      now: Date.now,
      clockOffsetMs: () => client.clock.offsetMs,
      settings: defaultEngineSettings(sim.webUrl, options.settings),
      locks: new EntityLocks(),
    };
    return harness({ sim, state, client, deps, root, stateFile, dir });
  };
}

/** The simulator profile the scenarios run against (vitest.config.ts sets it per project). */
export function simProfile(): SimProfile {
  const named = process.env.DOCSYNC_SIM_PROFILE ?? 'api';
  if (!isSimProfile(named)) throw new Error(`DOCSYNC_SIM_PROFILE: no simulator profile "${named}"`);
  return named;
}

function harness(h: {
  sim: Simulator;
  state: StateStore;
  client: Remote;
  deps: EngineDeps;
  root: string;
  stateFile: string;
  dir: string;
}): SyncHarness {
  const { sim, root, dir } = h;
  const abs = (rel: string) => path.join(root, ...rel.split('/'));
  const walk = (
    rel: string,
    visit: (rel: string, file: string) => void,
    skip: (child: string) => boolean = () => false,
  ) => {
    if (!existsSync(abs(rel))) return;
    for (const entry of readdirSync(abs(rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (skip(child)) continue;
      // docsync never follows a link (an entity folder replaced by one is held, not synced), so
      // this picture of the store leaves links out too; reading one to a folder would throw.
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) walk(child, visit, skip);
      else visit(child, abs(child));
    }
  };
  // `.docsync/` is never entered: a sync running beside the walk (a test that reads the tree
  // from inside a request) makes and removes its temp folders there.
  const userFiles = (visit: (rel: string, file: string) => void) =>
    walk('', visit, (child) => child === '.docsync');
  const documentFolders = () => {
    const found = new Map<string, string>();
    userFiles((rel, file) => {
      if (path.posix.basename(rel) !== '.document.json') return;
      try {
        const id = (JSON.parse(readFileSync(file, 'utf8')) as { id?: string }).id;
        if (id) found.set(path.posix.dirname(rel), id);
      } catch {
        // A broken .document.json (a test's doing) names no document.
      }
    });
    return found;
  };
  const write = (rel: string, data: string | Uint8Array, mtimeMs?: number) => {
    mkdirSync(path.dirname(abs(rel)), { recursive: true });
    writeFileSync(abs(rel), data);
    if (mtimeMs !== undefined) utimesSync(abs(rel), mtimeMs / 1000, mtimeMs / 1000);
  };
  const read = (rel: string) => readFileSync(abs(rel));
  const { settings } = h.deps;
  return {
    ...h,
    cli(args, config = {}, run = {}) {
      const file = writeCliConfig(dir, sim, {
        settleSeconds: 0,
        queue: { requestsPerSecond: 1000, concurrency: 4 },
        onRemoteDelete: settings.onRemoteDelete,
        safety: {
          maxDeletePercent: settings.maxDeletePercent,
          maxDeleteCount: settings.maxDeleteCount,
        },
        ...config,
      });
      return runCli([...args, '--config', file], {
        env: { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() },
        timeoutMs: 60_000,
        ...run,
      });
    },
    sync: (options = {}) => runCycle(h.deps, { trigger: 'once', fullReconcile: true, ...options }),
    remote: () => sim.admin.dump(),
    remoteDoc: async (id) => (await sim.admin.dump()).documents.find((d) => d.id === id),
    tree() {
      const files = new Map<string, string>();
      userFiles((rel, file) => files.set(rel, sha256(readFileSync(file))));
      return files;
    },
    trash() {
      const files = new Map<string, string>();
      walk('.docsync/trash', (rel, file) =>
        files.set(rel.split('/').slice(3).join('/'), sha256(readFileSync(file))),
      );
      return files;
    },
    mtimes() {
      const files = new Map<string, number>();
      userFiles((rel, file) => files.set(rel, statSync(file).mtimeMs));
      return files;
    },
    documentFolder(id) {
      for (const [folder, named] of documentFolders()) if (named === id) return folder;
      return undefined;
    },
    entityFolder(owner) {
      const folder = h.state.entities.get(owner)?.folder;
      if (!folder) throw new Error(`no folder for ${owner.kind} ${owner.id}`);
      return folder;
    },
    meta: (folder) => JSON.parse(read(`${folder}/.document.json`).toString('utf8')) as DocumentMeta,
    editMeta(folder, change, mtimeMs) {
      const meta = JSON.parse(read(`${folder}/.document.json`).toString('utf8')) as DocumentMeta;
      write(`${folder}/.document.json`, JSON.stringify(change(meta), null, 2), mtimeMs);
    },
    write,
    read,
    exists: (rel) => existsSync(abs(rel)),
    remove: (rel) => rmSync(abs(rel), { recursive: true, force: true }),
    rename(from, to) {
      mkdirSync(path.dirname(abs(to)), { recursive: true });
      renameSync(abs(from), abs(to));
    },
    writesToService() {
      const writes: Record<string, number> = {};
      for (const [route, n] of Object.entries(sim.admin.counters().api.byRoute)) {
        if (/^(POST|PUT|PATCH|DELETE) /.test(route) && !route.includes('/oauth')) writes[route] = n;
      }
      return writes;
    },
    requests: () => ({ ...sim.admin.counters().api.byRoute }),
    resetCounters: () => sim.admin.resetCounters(),
    async owners() {
      const dump = await sim.admin.dump();
      return [
        ...dump.companies.map((c) => ({ kind: 'company' as const, id: String(c.id) })),
        ...dump.trusts.map((t) => ({ kind: 'trust' as const, id: String(t.id) })),
      ];
    },
  };
}

/** What both sides must agree on for one document: its status and its attachments' bytes. */
export function expectedFiles(doc: DumpDocument): Map<string, string> {
  return new Map(doc.attachments.map((a) => [a.name, a.sha256]));
}

/** The attachment files of a document folder (no `.document.json`), name → sha256. */
export function folderFiles(tree: ReadonlyMap<string, string>, folder: string) {
  const files = new Map<string, string>();
  for (const [rel, hash] of tree) {
    if (!rel.startsWith(`${folder}/`)) continue;
    const name = rel.slice(folder.length + 1);
    if (name !== '.document.json' && !name.includes('/')) files.set(name, hash);
  }
  return files;
}
