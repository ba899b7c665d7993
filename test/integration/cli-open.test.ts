import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Entity } from '../../src/domain/types.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

function company(id: string, name: string): Entity {
  return { kind: 'company', id, name, number: null, businessNumber: null, raw: { id, name } };
}

/** A config for a fresh simulator, and a state database that already knows three companies. */
async function setup() {
  const sim = await startSim();
  const dir = tempDir();
  const config = writeCliConfig(dir, sim);
  const state = StateStore.open(path.join(dir, 'state', 'docsync.db'));
  for (const entity of [
    company('c-100', 'Acme Pty Ltd'),
    company('c-200', 'Acme Holdings Pty Ltd'),
    company('c-300', 'ACME HOLDINGS PTY LTD'),
  ]) {
    state.entities.upsert({ entity, folder: null, matchedBy: null, updatedAt: 0 });
  }
  state.close();
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  return { sim, config, env };
}

describe('docsync open', () => {
  it('prints the deep link of an entity in the state, by id and by name in any case', async () => {
    const { sim, config, env } = await setup();
    const link = `${sim.webUrl}/s/html/main.html#/company/documents?cid=c-100`;

    const byId = await runCli(['open', 'company', 'c-100', '--config', config], { env });
    const byName = await runCli(['open', 'company', 'acme pty ltd', '--config', config], { env });

    expect(byId).toMatchObject({ code: 0, stdout: `${link}\n` });
    expect(byName).toMatchObject({ code: 0, stdout: `${link}\n` });
    expect(sim.admin.counters().api.total).toBe(0);
  });

  it('lists the candidates of an ambiguous name and exits 1', async () => {
    const { config, env } = await setup();

    const result = await runCli(['open', 'company', 'Acme Holdings Pty Ltd', '--config', config], {
      env,
    });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('"Acme Holdings Pty Ltd" matches 2 companies');
    expect(result.stderr).toContain('c-200  Acme Holdings Pty Ltd');
    expect(result.stderr).toContain('c-300  ACME HOLDINGS PTY LTD');
  });

  it('asks the service for an entity not in the state yet', async () => {
    const { sim, config, env } = await setup();
    const trust = sim.admin.createTrust({ name: 'Smith Family Trust' });

    const result = await runCli(['open', 'trust', 'smith family', '--config', config], { env });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${sim.webUrl}/s/html/main.html#/trusts/${trust.id}/documents\n`);
  });

  it('says so and exits 1 for an entity nobody knows', async () => {
    const { config, env } = await setup();

    const result = await runCli(['open', 'trust', 'No Such Trust', '--config', config], { env });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No trust has the id or name "No Such Trust".');
  });
});
