/**
 * A stop in the middle of a first sync at the service's rate: the daemon's syncs end at their
 * next request instead of sending all they had queued, and the next start carries on from
 * there with nothing lost. A person's Ctrl-C, systemd's SIGTERM: both are `close()`.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RunStoppedError } from '../../src/domain/errors.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { useRemote } from '../helpers/remote.js';
import { useTempDir } from '../helpers/temp-dir.js';

const startRemote = useRemote();
const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();

const FIRM = {
  companies: 30,
  trusts: 0,
  documentsPerEntity: 3,
  attachmentsPerDocument: 1,
  seed: 37,
};

describe('a stop during the first sync', () => {
  it('sends nothing after the stop, and the next start finishes with every document', {
    timeout: 60_000,
  }, async () => {
    const { sim } = await startRemote({ rateLimitPerSecond: 0, seed: FIRM });
    const dir = tempDir();
    const root = path.join(dir, 'documents');
    // At a firm's pace the queue holds many requests ahead of the syncs in flight.
    const slow = writeCliConfig(dir, sim, {
      schedule: NEVER,
      queue: { requestsPerSecond: 5, concurrency: 4 },
      log: { level: 'info' },
    });
    const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
    const sent = () => {
      const { api, links } = sim.admin.counters();
      return api.total + links.requests;
    };
    const first = startDaemon(slow, env);
    await first.started;
    // The catalogue is read and documents are being pulled.
    await vi.waitFor(() => expect(sent()).toBeGreaterThanOrEqual(12), { timeout: 30_000 });

    const atStop = sent();
    await first.stop();
    const afterStop = sent();
    // Only requests already on the wire at the stop may still be answered.
    expect(afterStop - atStop).toBeLessThanOrEqual(4);
    // And nothing can go later: the stopped daemon's client refuses any request, unsent.
    await expect(first.app.remote.client.company('1')).rejects.toBeInstanceOf(RunStoppedError);
    expect(sent()).toBe(afterStop);
    expect(first.log().find((e) => /first sync finished/.test(e.msg))).toMatchObject({
      result: 'interrupted',
    });

    // The next start takes up the rest: every document of the service in its folder, once.
    const fast = writeCliConfig(dir, sim, { schedule: NEVER });
    const second = startDaemon(fast, env);
    await second.started;
    const documents = sim.admin.documents().length;
    const pulled = () =>
      readdirSync(path.join(root, 'Companies')).flatMap((company) =>
        readdirSync(path.join(root, 'Companies', company)).filter((name) => /\[\d+\]$/.test(name)),
      );
    await vi.waitFor(() => expect(pulled()).toHaveLength(documents), { timeout: 30_000 });
    expect(new Set(pulled()).size).toBe(documents);
    expect(sim.admin.documents()).toHaveLength(documents);
  });
});
