/**
 * A monitor polls `/healthz` of a daemon syncing a firm of 5,000 entities (3,000 companies,
 * 2,000 trusts, in step with the store: the state is seeded directly from the service's list, as
 * a first sync leaves it), while its start round lists them. `/healthz` and `/metrics` answer
 * from the state's counts, never from the full status report, and say what changed at once;
 * and a `/healthz` that arrives while the status page is being built is answered before the
 * page, which yields between its slices instead of holding everything behind it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { entityDeepLink } from '../../src/domain/deep-links.js';
import { entityFolderName } from '../../src/domain/local-folder-names.js';
import { serviceKey } from '../../src/domain/service-identity.js';
import type { Entity, OwnerRef } from '../../src/domain/types.js';
import { FsLocalStore } from '../../src/local/fs-local-store.js';
import { ENTITY_META, ENTITY_ROOTS, SHORTCUT_FILE } from '../../src/local/local-store.js';
import { formatEntityMeta, formatShortcut } from '../../src/local/metadata-files.js';
import type { Simulator } from '../../src/simulator/index.js';
import { StateStore } from '../../src/state/state-store.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';
import { collectRead, useRemote } from '../helpers/remote.js';
import { useTempDir } from '../helpers/temp-dir.js';

// Closing a daemon waits for its start round's set-up (5,000 folders looked at), and the folders
// are removed after: room for a busy machine.
vi.setConfig({ hookTimeout: 120_000 });
const startRemote = useRemote();
const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

const FIRM = { companies: 3000, trusts: 2000, documentsPerEntity: 0, seed: 35 };
const MINUTE = 60_000;

/**
 * The store as a first sync of the firm leaves it: each entity's row and folder (with the files
 * the sync writes in it), synced over the last hours, the root's marker, the first sync done.
 * Written plainly, not durably: 5,000 fsyncs would take a busy machine a minute.
 */
async function firmInStep(sim: Simulator, entities: readonly Entity[], dir: string) {
  const config = writeCliConfig(dir, sim, {
    schedule: NEVER,
    status: { enabled: true, listen: '127.0.0.1:0' },
    // The start round goes on through the test, as at a firm's 10 a second.
    queue: { requestsPerSecond: 10, concurrency: 4 },
    // The listeners say where they listen at info.
    log: { level: 'info' },
  });
  const { store, state: stateConfig } = loadConfig({ path: config, env: {} });
  mkdirSync(path.dirname(stateConfig.path), { recursive: true });
  const state = StateStore.open(stateConfig.path);
  const now = Date.now();
  state.transaction(() => {
    for (const [i, entity] of entities.entries()) {
      const folder = `${ENTITY_ROOTS[entity.kind]}/${entityFolderName(entity)}`;
      const link = entityDeepLink(sim.webUrl, entity);
      mkdirSync(path.join(store.root, folder), { recursive: true });
      writeFileSync(path.join(store.root, folder, ENTITY_META), formatEntityMeta(entity, link));
      writeFileSync(path.join(store.root, folder, SHORTCUT_FILE), formatShortcut(link));
      state.entities.upsert({ entity, folder, matchedBy: 'created', updatedAt: now });
      state.cursors.markSynced(owner(entity), now - (i % 300) * MINUTE);
    }
    state.settings.markInitialSyncDone();
    state.settings.recordServiceUrl(serviceKey(sim.apiUrl));
    const cycle = state.cycles.start({ trigger: 'once', fullReconcile: true, startedAt: now });
    state.cycles.finish(cycle, { result: 'ok', finishedAt: now });
  });
  state.close();
  await new FsLocalStore({
    root: store.root,
    settleSeconds: 0,
    service: serviceKey(sim.apiUrl),
  }).writeMarker();
  return config;
}

const owner = (entity: Entity): OwnerRef => ({ kind: entity.kind, id: entity.id });

/** A connection to the status listener, already past its first answer (accepted, idle). */
async function openConnection(url: string, order: string[], label: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  await new Promise((resolve) => socket.once('connect', resolve));
  const answered = new Promise((resolve) => socket.once('data', resolve));
  socket.write(request('/healthz', url, 'keep-alive'));
  await answered;
  socket.once('data', () => order.push(label));
  return socket;
}

const request = (target: string, url: string, connection: string) =>
  `GET ${target} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: ${connection}\r\n\r\n`;

describe('health that costs nothing, at 5,000 entities', () => {
  it('answers /healthz from the state counts at once, and before a status page being built', {
    // A firm's store to seed and a start round to set up (its catalogue, 5,000 folders): the
    // answers are not timed, the room is for a busy machine.
    timeout: 180_000,
  }, async () => {
    const { sim, remote } = await startRemote({ rateLimitPerSecond: 0, seed: FIRM });
    const entities = [
      ...(await collectRead(remote.client.companies())),
      ...(await collectRead(remote.client.trusts())),
    ];
    expect(entities).toHaveLength(5000);
    const config = await firmInStep(sim, entities, tempDir());
    const d = startDaemon(config, { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() });
    await d.started;
    const url = d.url('status page listening');
    const state = d.app.state;
    const report = vi.spyOn(state, 'statusReport');

    // A monitor polls while the daemon reads the firm's catalogue for its start round.
    const health = async () => {
      const answer = await fetch(`${url}/healthz`);
      return { code: answer.status, body: (await answer.json()) as Record<string, unknown> };
    };
    const scrape = async () => parsePrometheusText(await (await fetch(`${url}/metrics`)).text());
    for (let i = 0; i < 10; i++) expect((await health()).body.status).toBe('ok');

    // Something waits for a person: the very next answer says so, and the metric counts it.
    const conflict = state.conflicts.record({
      owner: owner(entities[1234]!),
      documentId: '5001',
      copyPath: 'Companies/x/2024-05-01 Minutes [5001]/minutes (conflict).pdf',
      winner: 'remote',
      occurredAt: Date.now(),
    });
    let answer = await health();
    expect(answer.code).toBe(200);
    expect(answer.body.status).toBe('needs attention');
    expect(answer.body.attention).toEqual([
      { kind: 'conflicts', count: 1, says: '1 conflict to look at', section: 'conflicts' },
    ]);
    expect((await scrape()).value('docsync_attention_items', { kind: 'conflicts' })).toBe(1);
    state.conflicts.markResolved(conflict, 'keep-both', Date.now());
    answer = await health();
    expect(answer.body.status).toBe('ok');
    expect((await scrape()).value('docsync_attention_items', { kind: 'conflicts' })).toBe(0);

    // The start round under way, listing the entities one by one: a person opens the page, and
    // the monitor's next request goes out the moment the page's build has begun (its first
    // read of the state, the deletes held).
    await vi.waitFor(() => expect(d.daemon.scheduler.snapshot().round).not.toBeNull(), {
      timeout: 120_000,
      interval: 100,
    });
    const order: string[] = [];
    const monitor = await openConnection(url, order, '/healthz');
    const browser = await openConnection(url, order, '/');
    const held = state.heldDeletes;
    const waiting = held.waiting.bind(held);
    vi.spyOn(held, 'waiting').mockImplementationOnce((limit) => {
      monitor.write(request('/healthz', url, 'keep-alive'));
      return waiting(limit);
    });
    const pageDone = new Promise<string>((resolve) => {
      let text = '';
      browser.on('data', (chunk: Buffer) => {
        text += chunk;
      });
      browser.on('end', () => resolve(text));
    });
    browser.write(request('/?sort=lag', url, 'close'));
    const page = await pageDone;
    expect(order).toEqual(['/healthz', '/']);
    expect(page).toMatch(/^HTTP\/1\.1 200 /);
    expect(page).toContain('Showing 1–50 of 5000.');
    // The round's progress, in the page's facts about the work.
    expect(page).toMatch(/\d+ of 5000 entities listed \(full listings\), started \d+ s ago/);

    // None of the monitor's answers read every entity: no full report.
    expect(report).not.toHaveBeenCalled();
  });
});
