import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function setup() {
  sim = await startSimulator({ seed: 'demo' });
  const dir = tempDir();
  const config = writeCliConfig(dir, sim);
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  return { sim, dir, config, env };
}

describe('docsync api', () => {
  it('prints lists as a JSON array and single records as JSON objects', async () => {
    const { sim, config, env } = await setup();
    const dump = await sim.admin.dump();

    const list = await runCli(['api', 'trusts', 'list', '--config', config], { env });
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    const trusts = JSON.parse(list.stdout) as { id: string; name: string }[];
    expect(trusts.map((t) => t.id).sort()).toEqual(dump.trusts.map((t) => String(t.id)).sort());

    const unit = dump.trusts.find((t) => t.type === 'UNIT')!;
    const tx = path.join(path.dirname(config), 'tx.json');
    writeFileSync(
      tx,
      JSON.stringify({
        type: 'Allotment',
        transactionDate: '2026-07-01',
        numberOfUnits: 10,
        certificateType: 'None',
        unitholderId: Number(dump.contacts[0]!.id),
      }),
    );
    const created = await runCli(
      ['api', 'unit-transactions', 'create', String(unit.id), '--file', tx, '--config', config],
      { env },
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ numberOfUnits: 10, id: expect.any(String) });

    const fund = dump.funds[0]!;
    const pension = await runCli(
      [
        'api',
        'pension-summary',
        String(fund.id),
        '--year',
        String(fund.financialYears[0]),
        '--config',
        config,
      ],
      { env },
    );
    expect(pension.code).toBe(0);
    expect(JSON.parse(pension.stdout)).toMatchObject({ fundId: String(fund.id) });
  });

  it('explains a wrong resource, operation or argument count, exit 1', async () => {
    const { config, env } = await setup();
    const wrong = await runCli(['api', 'invoices', 'list', '--config', config], { env });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('unknown resource "invoices"; one of: companies, trusts');
    const missing = await runCli(['api', 'documents', 'get', 'trust', '--config', config], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'usage: docsync api documents get <company|trust> <ownerId> <documentId>',
    );
  });

  it('says how to authorise when no token is stored', async () => {
    const { config } = await setup();
    const result = await runCli(['api', 'status-types', 'list', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('docsync auth login');
  });
});

describe('docsync auth login and status', () => {
  it('exchanges a pasted code, stores the tokens, and the client then works without a seed', async () => {
    const { sim, config } = await setup();
    const authorize = new URL(`${sim.apiUrl}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: sim.clientId,
      scope: 'cas',
      redirect_uri: 'http://127.0.0.1:0/callback',
      state: 's',
    }).toString();
    const redirect = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;

    const login = await runCli(['auth', 'login', '--code', code, '--config', config]);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('docsync is authorised');
    const types = await runCli(['api', 'status-types', 'list', '--config', config]);
    expect(JSON.parse(types.stdout)).toContainEqual({ id: '2', name: 'DOCUMENT PREPARED' });
  });

  it('prints the status of a fresh store, in words and as JSON', async () => {
    const { config, dir } = await setup();
    // Authorised, never synced: the state database is there (status never makes one).
    StateStore.open(path.join(dir, 'state', 'docsync.db')).close();
    const text = await runCli(['status', '--config', config]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Last cycle: none yet');
    expect(text.stdout).toContain('Pending pushes: 0');
    const json = await runCli(['status', '--json', '--config', config]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      initialSyncDone: false,
      entities: [],
      conflicts: { total: 0 },
    });
  });
});
