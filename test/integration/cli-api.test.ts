import { writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGE_LIMIT } from '../../src/remote/paging.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { advisedCommand, runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startSim = useSimulators();

/** A proxy to `target` that answers 404 to any page after the first (`offset` > 0). */
async function failingSecondPage(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    if (Number(url.searchParams.get('offset') ?? 0) > 0) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'not_found', message: 'page gone' } }));
      return;
    }
    const upstream = request(
      url,
      { method: req.method, headers: { ...req.headers, host: url.host } },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function setup() {
  const sim = await startSim({ seed: 'demo' });
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

  it('keeps stdout valid JSON when a call fails: an error object, never a bare [', async () => {
    const { config, env } = await setup();
    const failed = await runCli(
      ['api', 'documents', 'list', 'company', '99999', '--config', config],
      {
        env,
      },
    );
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toEqual({
      error: expect.objectContaining({ status: 404, serviceCode: 'not_found' }),
    });
    expect(failed.stderr).toContain('No company with id 99999');
  });

  it('ends a list cut off midway with the error as its last element', async () => {
    const { sim, dir } = await setup();
    for (let i = 0; i < PAGE_LIMIT; i++) sim.admin.createCompany({ name: `Company ${i}` });
    // The service as seen through a proxy that fails the second page: the first came whole.
    const proxy = await failingSecondPage(sim.apiUrl);
    const config = writeCliConfig(dir, sim, { service: { baseUrl: proxy.url } });

    const cut = await runCli(['api', 'companies', 'list', '--config', config], {
      env: { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() },
    });
    await proxy.close();

    expect(cut.code).toBe(1);
    const items = JSON.parse(cut.stdout) as Record<string, unknown>[];
    expect(items).toHaveLength(PAGE_LIMIT + 1);
    expect(items.at(-1)).toEqual({
      error: expect.objectContaining({ status: 404, route: 'GET /cas/companies' }),
    });
    expect(items.slice(0, -1).every((item) => !('error' in item))).toBe(true);
  });

  it("says a 4xx is a refusal that changed nothing, in the service's words", async () => {
    const { sim, config, env } = await setup();
    const doc = (await sim.admin.dump()).documents[0]!;
    const refused = await runCli(
      [
        'api',
        'documents',
        'assign-status',
        doc.owner.kind,
        doc.owner.id,
        doc.id,
        '999',
        '--config',
        config,
      ],
      { env },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'docsync: the service refused POST /cas/companies/{companyId}/documents/{documentId}/statuses (422 validation_failed): Unknown status type 999; nothing was changed\n',
    );
    expect(refused.stderr).not.toContain('may or may not');
    expect(JSON.parse(refused.stdout).error).toMatchObject({ status: 422 });
  });

  it('checks a local file before any request: a missing one is said, and nothing is sent', async () => {
    const { sim, dir, config, env } = await setup();
    const doc = (await sim.admin.dump()).documents[0]!;
    sim.admin.resetCounters();
    const missing = path.join(dir, 'missing.pdf');
    const upload = await runCli(
      [
        'api',
        'attachments',
        'upload',
        doc.owner.kind,
        doc.owner.id,
        doc.id,
        missing,
        '--config',
        config,
      ],
      { env },
    );
    expect(upload.code).toBe(1);
    expect(upload.stderr).toBe(
      `docsync: cannot upload ${missing}: no such file; nothing was sent\n`,
    );
    const create = await runCli(
      [
        'api',
        'documents',
        'create',
        doc.owner.kind,
        doc.owner.id,
        '--file',
        missing,
        '--config',
        config,
      ],
      { env },
    );
    expect(create.stderr).toBe(
      `docsync: cannot read --file ${missing}: no such file; nothing was sent\n`,
    );
    expect(sim.admin.counters().api.total).toBe(0);
  });

  it('takes a status type by name wherever it takes its id', async () => {
    const { sim, dir, config, env } = await setup();
    const doc = (await sim.admin.dump()).documents[0]!;
    const assigned = await runCli(
      [
        'api',
        'documents',
        'assign-status',
        doc.owner.kind,
        doc.owner.id,
        doc.id,
        'sent to client',
        '2026-11-20',
        '--config',
        config,
      ],
      { env },
    );
    expect(assigned.stderr).toBe('');
    expect(JSON.parse(assigned.stdout)).toMatchObject({ typeId: '3', type: 'SENT TO CLIENT' });

    const body = path.join(dir, 'document.json');
    writeFileSync(
      body,
      JSON.stringify({ name: 'Deed', documentDate: '2026-11-20', status: { typeId: 'Lodged' } }),
    );
    const created = await runCli(
      [
        'api',
        'documents',
        'create',
        doc.owner.kind,
        doc.owner.id,
        '--file',
        body,
        '--config',
        config,
      ],
      { env },
    );
    expect(JSON.parse(created.stdout).status).toMatchObject({ typeId: '21', type: 'LODGED' });

    const unknown = await runCli(
      [
        'api',
        'documents',
        'assign-status',
        doc.owner.kind,
        doc.owner.id,
        doc.id,
        'Filed',
        '--config',
        config,
      ],
      { env },
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      'no status type "Filed"; one of: ADDED FROM MIGRATION, DOCUMENT PREPARED',
    );
  });

  it('refuses an argument too many or an option the operation does not take', async () => {
    const { sim, config, env } = await setup();
    sim.admin.resetCounters();
    const extra = await runCli(['api', 'trusts', 'get', '20001', '20002', '--config', config], {
      env,
    });
    expect(extra.code).toBe(1);
    expect(extra.stderr).toBe(
      'docsync: unexpected argument "20002"; usage: docsync api trusts get <trustId>\n',
    );
    const option = await runCli(['api', 'trusts', 'list', '--details', '--config', config], {
      env,
    });
    expect(option.code).toBe(1);
    expect(option.stderr).toContain('trusts list takes no --details');
    const optional = await runCli(['api', 'documents', 'unlodged', '1', '2', '--config', config], {
      env,
    });
    expect(optional.stderr).toContain('unexpected argument "2"');
    expect(extra.stdout + option.stdout + optional.stdout).toBe('');
    expect(sim.admin.counters().api.total).toBe(0);
  });

  it('says how to authorise when no token is stored', async () => {
    const { config } = await setup();
    const result = await runCli(['api', 'status-types', 'list', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`\`${advisedCommand(config, 'auth login')}\``);
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
