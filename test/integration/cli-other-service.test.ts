/**
 * A state and a folder synced with one service, then a configuration that names another (the
 * environment flipped from staging to production): the daemon and `--once` refuse to start with
 * one sentence naming state.path (or store.root, when only the state was replaced), before any
 * request reaches the other service and with the folder untouched; `docsync check` says the
 * same; a state an older docsync wrote, without the record, takes the configured service at its
 * next run. Two simulators on port 0 play the two services; the command line runs in this
 * process on a captured terminal.
 */
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckLine } from '../../src/domain/check-lines.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { type CliResult, runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

/** Unthrottled: what is refused here is refused before any request, and the first sync is set-up. */
async function simulator(): Promise<Simulator> {
  const sim = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0 });
  sims.push(sim);
  return sim;
}

/** Every path under `root` with its size and mtime: what a refused run must leave as it was. */
function listing(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((rel) => {
      const stats = statSync(path.join(root, rel));
      return `${rel} ${stats.isDirectory() ? 'dir' : stats.size} ${stats.mtimeMs}`;
    })
    .sort();
}

/** Exit 1 and one line on stderr, no stack; returns that line without `docsync: `. */
function sentenceOf(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 1 });
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!.replace(/^docsync: /, '');
}

/** A firm synced once with `staging`, and a configuration in the same dir naming `production`. */
async function syncedWithStaging() {
  const staging = await simulator();
  const production = await simulator();
  const dir = tempDir();
  const root = path.join(dir, 'documents');
  const statePath = path.join(dir, 'state', 'docsync.db');
  const stagingConfig = writeCliConfig(dir, staging);
  const env = { DOCSYNC_REFRESH_TOKEN: staging.admin.mintRefreshToken() };
  const first = await runCli(['run', '--once', '--config', stagingConfig], {
    env,
    timeoutMs: 60_000,
  });
  expect(first.code).toBe(0);
  const productionDir = tempDir();
  const productionConfig = writeCliConfig(productionDir, production, {
    store: { root },
    state: { path: statePath },
  });
  return { staging, production, dir, root, statePath, stagingConfig, productionConfig, env };
}

const key = (sim: Simulator) => new URL(sim.apiUrl).origin;

describe('a state and a folder synced with another service', () => {
  it('refuses --once, the daemon and the commands that send its login, before any request; check fails it', async () => {
    const s = await syncedWithStaging();
    const before = listing(s.root);
    s.production.admin.resetCounters();

    const expected =
      `The state database ${s.statePath} (state.path) was synced with ${key(s.staging)}, but ` +
      `service.baseUrl is ${key(s.production)}: its ids are the other service's, and a sync would ` +
      'take every document it knows for deleted. Set service.environment (or service.baseUrl) ' +
      `back to the service it was synced with, or give ${key(s.production)} its own state.path ` +
      'and store.root (docs/real-service.md, "A state of another service"). Nothing was sent or synced.';
    for (const args of [
      ['run', '--once'],
      ['run', '--once', '--dry-run'],
      ['run'],
      ['api', 'companies', 'list'],
    ]) {
      const result = await runCli([...args, '--config', s.productionConfig], {
        env: s.env,
        timeoutMs: 30_000,
      });
      expect({ args, sentence: sentenceOf(result) }).toEqual({ args, sentence: expected });
    }
    const check = await runCli(['check', '--json', '--config', s.productionConfig], {
      env: s.env,
    });

    expect(check.code).toBe(1);
    const lines = JSON.parse(check.stdout).lines as CheckLine[];
    expect(lines.find((l) => l.topic === 'state service')).toMatchObject({
      result: 'fail',
      message: expect.stringContaining(
        `was synced with ${key(s.staging)}, not with ${key(s.production)}`,
      ),
    });
    expect(lines.some((l) => l.topic === 'token')).toBe(false);
    expect(s.production.admin.counters().api.total).toBe(0);
    expect(listing(s.root)).toEqual(before);
  });

  it('refuses a new state on the old folder: .docsync-root names the service', async () => {
    const s = await syncedWithStaging();
    renameSync(s.statePath, `${s.statePath}.staging`);
    const before = listing(s.root);
    const env = { DOCSYNC_REFRESH_TOKEN: s.production.admin.mintRefreshToken() };

    const once = await runCli(['run', '--once', '--config', s.productionConfig], { env });
    const check = await runCli(['check', '--json', '--config', s.productionConfig], { env });

    expect(sentenceOf(once)).toBe(
      `The folder ${s.root} (store.root) was synced with ${key(s.staging)} (its .docsync-root ` +
        `says so), but service.baseUrl is ${key(s.production)}: its ids are the other service's, ` +
        'and a sync would take every document it knows for deleted. Set service.environment (or ' +
        `service.baseUrl) back to the service it was synced with, or give ${key(s.production)} ` +
        'its own store.root and state.path (docs/real-service.md, "A state of another service"). Nothing ' +
        'was sent or synced.',
    );
    expect(readFileSync(path.join(s.root, '.docsync-root'), 'utf8')).toContain(
      `\nservice ${key(s.staging)}\n`,
    );
    const lines = JSON.parse(check.stdout).lines as CheckLine[];
    expect(check.code).toBe(1);
    expect(lines.find((l) => l.topic === 'store marker')).toMatchObject({
      result: 'fail',
      message: expect.stringContaining(`synced with ${key(s.staging)}, not with`),
    });
    // The refused run opened its new state, but synced nothing into the folder.
    expect(listing(s.root)).toEqual(before);
  });

  it('records the service of a state and a marker an older docsync wrote without it, at the next run', async () => {
    const s = await syncedWithStaging();
    const marker = path.join(s.root, '.docsync-root');
    const firstLine = readFileSync(marker, 'utf8').split('\n')[0]!;
    // As docsync wrote them before it recorded the service.
    const state = StateStore.open(s.statePath);
    state.settings.delete('serviceUrl');
    state.close();
    writeFileSync(marker, `${firstLine}\n`);

    const check = await runCli(['check', '--json', '--config', s.stagingConfig], { env: s.env });
    const once = await runCli(['run', '--once', '--config', s.stagingConfig], { env: s.env });

    expect(JSON.parse(check.stdout).lines).toContainEqual(
      expect.objectContaining({
        topic: 'state service',
        result: 'warn',
        message: expect.stringContaining(`the next run records ${key(s.staging)}`),
      }),
    );
    expect(once.code).toBe(0);
    const after = StateStore.open(s.statePath, { existing: true });
    expect(after.settings.serviceUrl()).toBe(key(s.staging));
    after.close();
    expect(readFileSync(marker, 'utf8')).toBe(`${firstLine}\nservice ${key(s.staging)}\n`);
    // From now on, production is refused.
    const refused = await runCli(['run', '--once', '--config', s.productionConfig], {
      env: s.env,
    });
    expect(sentenceOf(refused)).toContain(`was synced with ${key(s.staging)}`);
  });
});
