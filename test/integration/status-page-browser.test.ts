/**
 * The status page as an operator sees it: real Chromium (Debian's, which `npm test` installs when missing:
 * .ci/test-tools)
 * loading the page of a state the engine itself wrote, after a real conflict and a real error,
 * and resolving the conflict with a double click, which sends one resolution;
 * and the page of a running daemon (`docsync run`'s, in this process), whose "Sync now" button
 * makes a real sync that the feed of recent changes then shows, and whose "Approve" lets through
 * the deletes a rail held, which the daemon then carries out. One browser serves the file's
 * tests, each page in a context of its own. The page at 5,000 entities:
 * status-page-scale-browser.test.ts.
 */
import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { EntityLocks } from '../../src/engine/entity-locks.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { createLogger } from '../../src/log/create-logger.js';
import { StateStore } from '../../src/state/state-store.js';
import { Metrics } from '../../src/web/metrics.js';
import { operatorActions } from '../../src/web/operator-actions.js';
import { startStatusServer } from '../../src/web/status-server.js';
import { useBrowserPages } from '../helpers/browser.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually, firstSyncDone } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const newPage = useBrowserPages();
const startSim = useSimulators();
const startDaemon = useInProcessDaemons();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('status page in a browser', () => {
  it('shows a conflict and an item in error that the engine recorded', async () => {
    const sim = await startSim({ seed: 'demo', rateLimitPerSecond: 0 });
    const dir = tempDir();
    const configFile = writeCliConfig(dir, sim, { settleSeconds: 0 });
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    expect((await runCli(['run', '--once', '--config', configFile], { env })).code).toBe(0);

    // A user attachment changed on both sides, the service's change the newer one.
    const doc = (await sim.admin.dump()).documents.find((d) =>
      d.attachments.some((a) => a.kind === 'user'),
    )!;
    const attachment = doc.attachments.find((a) => a.kind === 'user')!;
    const root = path.join(dir, 'documents');
    const top = doc.owner.kind === 'company' ? 'Companies' : 'Trusts';
    const entity = readdirSync(path.join(root, top)).find((e) =>
      readFileSync(path.join(root, top, e, '.entity.json'), 'utf8').includes(doc.owner.id),
    )!;
    const folder = path.join(
      root,
      top,
      entity,
      readdirSync(path.join(root, top, entity)).find((f) => f.endsWith(`[${doc.id}]`))!,
    );
    const local = path.join(folder, attachment.name);
    writeFileSync(local, 'the local edit');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(local, anHourAgo, anHourAgo);
    sim.admin.deleteAttachment(doc.id, attachment.id);
    sim.admin.addAttachment(doc.id, { name: attachment.name, bytes: 'the service edit' });
    // And a status name the service does not have, typed into another document's .document.json
    // (one with nothing else to do, so no rewrite of it puts the agreed status back).
    const other = readdirSync(path.join(root, top, entity)).find(
      (f) => f.includes('[') && !f.endsWith(`[${doc.id}]`),
    )!;
    const metaFile = path.join(root, top, entity, other, '.document.json');
    const meta = JSON.parse(readFileSync(metaFile, 'utf8'));
    writeFileSync(metaFile, JSON.stringify({ ...meta, status: 'ALMOST DONE' }, null, 2));
    utimesSync(metaFile, anHourAgo, anHourAgo);
    const second = await runCli(['run', '--once', '--config', configFile], { env });
    expect(second.code).toBe(3);

    const config = loadConfig({ path: configFile, env: {} });
    const state = StateStore.open(config.state.path);
    closers.push(() => state.close());
    const operator = operatorActions({
      state,
      local: new FsLocalStore({ root, settleSeconds: 0, metaCache: state.metaFiles }),
      webUrl: config.service.webUrl,
      onRemoteDelete: config.onRemoteDelete,
      now: Date.now,
      locks: new EntityLocks(),
    });
    const server = await startStatusServer({
      config: { ...config, status: { ...config.status, listen: { host: '127.0.0.1', port: 0 } } },
      state,
      metrics: new Metrics(),
      logger: createLogger({ level: 'silent' }),
      runtime: () => ({
        nextCycleAt: null,
        queueDepth: 0,
        requestsPerSecond: 0,
        watcherMode: 'events',
        tokenValid: true,
      }),
      actions: { operator, syncEntity: () => ({ kind: 'done', message: 'queued' }) },
    });
    closers.push(() => server.close());

    const page = await newPage();
    await page.goto(server.url);
    const conflicts = await page.locator('h3', { hasText: 'Conflicts' }).textContent();
    expect(conflicts).toContain('Conflicts (1)');
    const body = await page.locator('body').innerText();
    expect(body).toMatch(
      new RegExp(
        `${attachment.name.replace(/\.pdf$/, '')} \\(conflict \\d{4}-\\d{2}-\\d{2} \\d{4}\\)\\.pdf`,
      ),
    );
    expect(body).toContain('Items in error (1)');
    expect(body).toContain('ALMOST DONE');

    // A double click on a resolution sends it once: the script ignores the second submit.
    const posted: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posted.push(new URL(r.url()).pathname);
    });
    await page
      .locator('#conflicts')
      .getByRole('button', { name: "Keep the service's version" })
      .dblclick();
    await expect
      .poll(() => page.locator('#notice').textContent())
      .toMatch(/^Conflict \d+ resolved \(keep-theirs\)/);
    expect(posted).toEqual(['/actions/resolve-conflict']);
    expect(state.conflicts.count()).toBe(0);
    expect(readFileSync(local, 'utf8')).toBe('the service edit');
    expect(readdirSync(folder).filter((f) => f.includes('(conflict'))).toEqual([]);
  });

  it("syncs an entity when its Sync now is clicked, and shows the sync's changes under Recent changes", async () => {
    const sim = await startSim({ seed: 'demo', rateLimitPerSecond: 0 });
    const dir = tempDir();
    const config = writeCliConfig(dir, sim, {
      log: { level: 'info' },
      // Nothing but the button syncs after the catch-up at start.
      schedule: NEVER,
      status: { enabled: true, listen: '127.0.0.1:0' },
    });
    const daemon = startDaemon(config, { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() });
    await daemon.started;
    const url = daemon.url('status page listening');
    await firstSyncDone(`${url}/healthz`);

    const doc = (await sim.admin.dump()).documents.find((d) => d.owner.kind === 'company')!;
    sim.admin.addAttachment(doc.id, { name: 'Sent by the service.pdf', bytes: '%PDF-1.4 new' });
    const page = await newPage();
    await page.goto(`${url}/?q=${doc.owner.id}`);
    const feed = page.locator('#activity tbody tr');
    // The catch-up at start pulled the firm's documents: the feed shows them.
    expect(await feed.first().locator('.change').textContent()).toBe('pulled');
    expect(await page.locator('#about').textContent()).toMatch(/^docsync \d+\.\d+\.\d+, up /);

    const row = page
      .locator('#entities tbody tr')
      .filter({ has: page.locator('small', { hasText: new RegExp(`^${doc.owner.id}$`) }) });
    const entityName = await row.locator('.name').textContent();
    await row.getByRole('button', { name: 'Sync now' }).click();
    await expect
      .poll(() => page.locator('#notice').textContent())
      .toBe(`A sync of ${entityName} is queued; what it changes shows under Recent changes.`);

    const root = path.join(dir, 'documents');
    const entity = readdirSync(path.join(root, 'Companies')).find((e) =>
      readFileSync(path.join(root, 'Companies', e, '.entity.json'), 'utf8').includes(doc.owner.id),
    )!;
    const folder = readdirSync(path.join(root, 'Companies', entity)).find((f) =>
      f.endsWith(`[${doc.id}]`),
    )!;
    await eventually(() =>
      readdirSync(path.join(root, 'Companies', entity, folder)).includes('Sent by the service.pdf'),
    );
    // The file lands before the sync records it and ends: the page shows both once they are done.
    const newest = async () => {
      await page.reload();
      return feed.first().locator('td').allTextContents();
    };
    await expect
      .poll(newest, { timeout: 15_000 })
      .toEqual([expect.any(String), entityName, doc.name, 'pulled', 'Sent by the service.pdf', '']);
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('#sync').innerText();
        },
        { timeout: 15_000 },
      )
      .toContain('(manual)');
    await daemon.stop();
  });

  it('approves the deletes a rail held under the daemon, which then carries them out', async () => {
    const sim = await startSim({
      rateLimitPerSecond: 0,
      seed: { companies: 1, trusts: 1, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 9 },
    });
    const dir = tempDir();
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const config = writeCliConfig(dir, sim, {
      settleSeconds: 0.3,
      // A removed folder's delete waits half a second before it counts (60 s by default).
      safety: { maxDeleteCount: 2, maxDeletePercent: 100, deleteHoldSeconds: 0.5 },
      log: { level: 'info' },
      // Only the watcher, the button and the decisions start syncs after the catch-up.
      schedule: NEVER,
      status: { enabled: true, listen: '127.0.0.1:0' },
    });
    expect((await runCli(['run', '--once', '--config', config], { env })).code).toBe(0);
    const daemon = startDaemon(config, env);
    await daemon.started;
    const url = daemon.url('status page listening');

    // Three document folders removed from the store: more deletes than the rail lets through.
    const root = path.join(dir, 'documents');
    const company = readdirSync(path.join(root, 'Companies'))[0]!;
    const companyDir = path.join(root, 'Companies', company);
    const gone = readdirSync(companyDir)
      .filter((f) => f.includes('['))
      .slice(0, 3);
    const goneIds = gone.map((f) => /\[(\d+)\]$/.exec(f)![1]!);
    for (const f of gone) rmSync(path.join(companyDir, f), { recursive: true });
    await eventually(async () => (await (await fetch(url)).text()).includes('Held deletes (3)'));
    const inService = async () => (await sim.admin.dump()).documents.map((d) => d.id);
    for (const id of goneIds) expect(await inService()).toContain(id);

    const page = await newPage();
    await page.goto(url);
    const held = page.locator('#held');
    expect(await held.locator('tbody tr').count()).toBe(3);
    expect(await held.innerText()).toContain('was removed from the store');
    await held.getByRole('button', { name: 'Approve its 3 deletes' }).click();
    await expect
      .poll(() => page.locator('#notice').textContent())
      .toMatch(/^Approved 3 held deletes of .+: its sync starts now and carries them out/);

    await eventually(async () => {
      const ids = await inService();
      return goneIds.every((id) => !ids.includes(id));
    });
    await eventually(async () => !(await (await fetch(url)).text()).includes('id="held"'));
    await page.reload();
    expect(await page.locator('#no-problems').textContent()).toContain('held deletes');
    expect(await page.locator('#sync').innerText()).toContain('(manual)');
    // The service's copies went to the trash before the deletes.
    const trash = path.join(root, '.docsync', 'trash');
    const copies = readdirSync(trash).flatMap((day) =>
      readdirSync(path.join(trash, day, 'Companies', company)),
    );
    for (const f of gone) expect(copies).toContain(f);
    await daemon.stop();
  });
});
