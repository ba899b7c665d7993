/**
 * A run before `docsync auth login`, or with a grant the service refuses: one sentence that
 * reads right, and nothing claimed. The store's `.docsync-root` and the state's record of the
 * service are written only once the service has let docsync in, so a run that could not start
 * leaves the folder and the state as they were, and the run after the login makes both. The
 * built command line runs in this process against the simulator on port 0.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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

async function firstDay() {
  const sim = await startSimulator({ seed: 'demo', rateLimitPerSecond: 0 });
  sims.push(sim);
  const dir = tempDir();
  const config = writeCliConfig(dir, sim);
  return {
    sim,
    config,
    marker: path.join(dir, 'documents', '.docsync-root'),
    statePath: path.join(dir, 'state', 'docsync.db'),
  };
}

/** The service the state names, null when none (or no state at all). */
function serviceInState(statePath: string): string | null {
  if (!existsSync(statePath)) return null;
  const state = StateStore.open(statePath);
  try {
    return state.settings.serviceUrl();
  } finally {
    state.close();
  }
}

/** Exit 1 with one line, no stack. */
function sentenceOf(result: CliResult): string {
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('a run docsync may not make yet', () => {
  it('before the login: a sentence without "again", and neither the marker nor the record of the service, from --once or the daemon', async () => {
    const day = await firstDay();

    for (const args of [['run', '--once'], ['run']]) {
      const result = await runCli([...args, '--config', day.config], { timeoutMs: 30_000 });
      const sentence = sentenceOf(result);
      // The command in the form that runs here (advice-form.ts), naming the configuration.
      expect(sentence).toMatch(
        /docsync has not been authorised yet\. Run `[^`]*auth login` to authorise it \(or set DOCSYNC_REFRESH_TOKEN\)\.$/,
      );
      expect(sentence).not.toContain('again');
      expect(existsSync(day.marker)).toBe(false);
      expect(serviceInState(day.statePath)).toBeNull();
    }

    // The run after the login claims both.
    const env = { DOCSYNC_REFRESH_TOKEN: day.sim.admin.mintRefreshToken() };
    const once = await runCli(['run', '--once', '--config', day.config], {
      env,
      timeoutMs: 60_000,
    });
    expect(once.code, once.stderr).toBe(0);
    expect(existsSync(day.marker)).toBe(true);
    expect(serviceInState(day.statePath)).toBe(new URL(day.sim.apiUrl).origin);
  });

  it('with a grant the service refuses: the refusal, and nothing claimed', async () => {
    const day = await firstDay();
    const env = { DOCSYNC_REFRESH_TOKEN: 'a-refresh-token-the-service-never-gave' };

    const result = await runCli(['run', '--once', '--config', day.config], {
      env,
      timeoutMs: 30_000,
    });

    expect(sentenceOf(result)).toContain("The service refused docsync's authorisation");
    expect(existsSync(day.marker)).toBe(false);
    expect(serviceInState(day.statePath)).toBeNull();
  });
});
