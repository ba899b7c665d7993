/**
 * The status page as an operator sees it: real Chromium (Debian's, which `npm test` installs when missing: .ci/test-tools)
 * loading the page of a state the engine itself wrote, after a real conflict and a real error.
 */
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/log/create-logger.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { Metrics } from '../../src/web/metrics.js';
import { startStatusServer } from '../../src/web/status-server.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const CHROMIUM = '/usr/bin/chromium';
const tempDir = useTempDir();
let sim: Simulator | undefined;
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await sim?.close();
});

describe('status page in a browser', () => {
  it('shows a conflict and an item in error that the engine recorded', async () => {
    sim = await startSimulator({ seed: 'demo' });
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
    });
    closers.push(() => server.close());

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
    closers.push(() => browser.close());
    const page = await browser.newPage();
    await page.goto(server.url);
    const conflicts = await page.locator('h2', { hasText: 'Conflicts' }).textContent();
    expect(conflicts).toContain('Conflicts (1)');
    const body = await page.locator('body').innerText();
    expect(body).toMatch(
      new RegExp(
        `${attachment.name.replace(/\.pdf$/, '')} \\(conflict \\d{4}-\\d{2}-\\d{2} \\d{4}\\)\\.pdf`,
      ),
    );
    expect(body).toContain('Items in error (1)');
    expect(body).toContain('ALMOST DONE');
  });
});
