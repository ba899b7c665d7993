/**
 * Permissions of what docsync creates in the folder: the firm shares it (a group, a Samba share),
 * so docsync's files must take the umask like anyone's, while the state file stays private
 * because it holds the service's tokens.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { SMALL_FIRM } from '../helpers/sync-harness.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-modes-');
const sims: Simulator[] = [];
afterEach(async () => {
  for (const sim of sims.splice(0)) await sim.close();
});

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('file permissions', () => {
  it('creates folders, attachments and .document.json by the umask, the state file 0600', async () => {
    const sim = await startSimulator({ rateLimitPerSecond: 0, seed: SMALL_FIRM });
    sims.push(sim);
    const dir = tempDir();
    const config = writeCliConfig(dir, sim, { settleSeconds: 0 });
    const run = await runCli(['run', '--once', '--config', config], {
      env: { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() },
      timeoutMs: 60_000,
      umask: 0o002,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const companies = path.join(dir, 'documents', 'Companies');
    const [entity] = readdirSync(companies);
    const entityDir = path.join(companies, entity!);
    const [document] = readdirSync(entityDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(entityDir, e.name));
    const attachments = readdirSync(document!).filter((name) => name !== '.document.json');
    expect(attachments.length).toBeGreaterThan(0);

    expect(modeOf(entityDir)).toBe(0o775);
    expect(modeOf(path.join(entityDir, '.entity.json'))).toBe(0o664);
    expect(modeOf(document!)).toBe(0o775);
    expect(modeOf(path.join(document!, '.document.json'))).toBe(0o664);
    for (const name of attachments) expect(modeOf(path.join(document!, name))).toBe(0o664);
    expect(modeOf(path.join(dir, 'state', 'docsync.db'))).toBe(0o600);
  });
});
