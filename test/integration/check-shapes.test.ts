/**
 * `docsync check --save FILE` before a firm's first run, against the simulator's reading of the
 * public pages (`--profile public-docs`): besides each route, the check says in which shape the
 * service answered where api.md's shapes are ours (the lists' keys, the download link, the
 * change times) and whether the status types can be read, so the saved file tells what the real
 * service sends. Run as an operator runs it, on the command line in this process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ShapeOptions } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

async function savedCheck(shapes: ShapeOptions = {}) {
  const sim = await startSim({
    seed: 'demo',
    profile: 'public-docs',
    rateLimitPerSecond: 0,
    shapes,
  });
  const dir = tempDir();
  const config = writeCliConfig(dir, sim);
  const file = path.join(dir, 'first-check.txt');
  const run = await runCli(['check', '--save', file, '--config', config], {
    env: { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() },
    timeoutMs: 60_000,
  });
  return { run, saved: readFileSync(file, 'utf8'), sim };
}

describe('docsync check --save against the public pages’ reading', () => {
  it('says which shape each answer came in', async () => {
    const { run, saved } = await savedCheck();

    expect(run.code, run.stdout).toBe(0);
    expect(saved).toMatch(
      /^ok {4}list shape: each of the \d+ lists answered with its items under the key the contract gives it$/m,
    );
    expect(saved).toMatch(
      /^ok {4}download link shape: GET [^\n]*\/download: `\{"url": …\}`, as the contract has it$/m,
    );
    // The public company example's details carry no change time; the trust example's do.
    expect(saved).toMatch(
      /^ok {4}timestamp shape: document lists: lastUpdatedTimestamp without an offset, read as UTC, as the contract has it \(e\.g\. \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\); document details: lastUpdatedTimestamp 1 left out: docsync takes the list item's, 1 without an offset, read as UTC, as the contract has it \(e\.g\. \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\)$/m,
    );
    expect(saved).toMatch(
      /^ok {4}GET \/cas\/documents\/statusTypes: answered 200: 8 status types/m,
    );
  });

  it('shows the other shapes as it saw them, and the status types it cannot read as a warning', async () => {
    const { run, saved, sim } = await savedCheck({
      lists: { companies: 'items' },
      link: 'redirect',
      timestamps: '+0000',
      statusTypes: 'absent',
    });

    // Nothing here keeps docsync from syncing: no line fails.
    expect(run.code, run.stdout).toBe(0);
    expect(saved).toMatch(
      /^WARN {2}GET \/cas\/documents\/statusTypes: answered 404 [^\n]*; the sync goes on without it: statuses are kept by the names the documents carry, and status pushes wait until the status types can be read$/m,
    );
    expect(saved).toMatch(
      /^ok {4}list shape: GET \/cas\/companies under `items`, its only list; the others as the contract has them$/m,
    );
    expect(saved).toMatch(
      /^ok {4}download link shape: GET [^\n]*\/download: a redirect \(3xx with Location\) to the file$/m,
    );
    expect(saved).toMatch(
      /^ok {4}timestamp shape: document lists: lastUpdatedTimestamp in UTC with \+0000 /m,
    );
    // The redirect's target is a download link, a capability: only its host is written down.
    expect(saved).not.toContain(`${sim.linkUrl}/files/`);
  });
});
