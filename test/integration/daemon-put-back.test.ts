/**
 * A document folder put back while its delete in the service is being carried out, at the level
 * a user reaches: the daemon as `docsync run` assembles it, in this process, against the
 * simulator on port 0 and a real folder. A removed folder's delete waits its hold (60 s, on a
 * clock the test moves), then the service's copy is saved to the trash (large PDFs on a slow
 * link take seconds), then the delete is sent. The test holds the daemon's calls at the step it
 * wants (the trash copy's downloads, or the delete's answer), puts the folder back there, and
 * lets the calls go: no timing luck.
 *
 * - Put back before the request: the delete is cancelled, the document stays in the service, and
 *   the folder is synced as it stands (it used to be deleted anyway, then "folder names document
 *   …, which the service has not shown; not synced" at every sync).
 * - The same for deletes a person approved (`docsync deletes approve --all`).
 * - Put back once the request had left (no look can see that): the folder is the person's
 *   document come back, created again in the service from it; its files stay as they were.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OwnerRef } from '../../src/domain/types.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { NEVER } from '../helpers/daemon-firm.js';
import { holdCalls, useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { TestClock } from '../helpers/test-clock.js';

/** A firm's first sync, a daemon and a few commands beside it, on a busy machine. */
const BUSY_MACHINE_MS = 60_000;

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

const CANCELLED = /is back in the store \(.*\): its delete in the service is cancelled, not sent/;
const NOT_SYNCED = 'which the service has not shown; not synced';

interface Folder {
  /** Absolute path. */
  readonly path: string;
  readonly id: string;
}

/** Every file of a folder with its bytes, by name: what "intact" is checked against. */
function contents(folder: string): Map<string, string> {
  return new Map(
    readdirSync(folder)
      .filter((name) => name !== '.document.json')
      .map((name) => [name, readFileSync(path.join(folder, name), 'base64')]),
  );
}

const metaId = (folder: string) =>
  (JSON.parse(readFileSync(path.join(folder, '.document.json'), 'utf8')) as { id: string }).id;

/**
 * One company of six documents, a store in step with it (made by `--once`), and the daemon on
 * it: the default hold, and at most two deletes before a rail holds them for a person.
 */
async function daemonInStep() {
  const sim = await startSim({
    rateLimitPerSecond: 0,
    seed: { companies: 1, trusts: 0, documentsPerEntity: 6, attachmentsPerDocument: 2, seed: 33 },
  });
  const dir = tempDir();
  const root = path.join(dir, 'documents');
  const env = { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() };
  const config = writeCliConfig(dir, sim, {
    settleSeconds: 0.3,
    safety: { maxDeleteCount: 2, maxDeletePercent: 100 },
    // Only the watcher, the hold and decisions start syncs after the daemon's catch-up.
    schedule: NEVER,
    log: { level: 'info' },
  });
  const once = await runCli(['run', '--once', '--config', config], { env });
  expect(once.code, once.stderr).toBe(0);
  const clock = new TestClock({ standsStill: true });
  const daemon = startDaemon(config, env, { clock });
  await daemon.started;
  const messages = () => daemon.log().map((l) => l.msg);
  await eventually(() => messages().some((m) => m.startsWith('poll round finished')));

  const company = readdirSync(path.join(root, 'Companies'))[0]!;
  const companyDir = path.join(root, 'Companies', company);
  const folders: Folder[] = readdirSync(companyDir)
    .filter((f) => /\[\d+\]$/.test(f))
    .map((f) => ({ path: path.join(companyDir, f), id: /\[(\d+)\]$/.exec(f)![1]! }));
  expect(folders).toHaveLength(6);
  const dump = () => sim.admin.dump();
  const owner: OwnerRef = { kind: 'company', id: String((await dump()).companies[0]!.id) };
  const away = path.join(dir, 'dragged-away');
  mkdirSync(away);
  return {
    sim,
    root,
    dir,
    env,
    config,
    clock,
    daemon,
    messages,
    folders,
    companyDir,
    owner,
    inService: async () => new Set((await dump()).documents.map((d) => d.id)),
    dump,
    /** Drags a folder out of the store, as to the desktop. */
    remove: (f: Folder) => renameSync(f.path, path.join(away, path.basename(f.path))),
    /** Drags it back, under its own name or another one. */
    putBack: (f: Folder, as = f.path) => renameSync(path.join(away, path.basename(f.path)), as),
    held: () => daemon.app.state.heldDeletes.list(),
    /** A sync of the company, as the watcher asks for one; resolves when it ended. */
    sync: () => daemon.daemon.request({ trigger: 'watcher', owner }),
  };
}

/** Moves the daemon's clock to where every removed folder's hold has ended. */
async function endHolds(d: Awaited<ReturnType<typeof daemonInStep>>, count: number) {
  await eventually(() => {
    const rows = d.held();
    return rows.length === count && rows.every((r) => r.dueAt !== null);
  });
  d.clock.advanceTo(Math.max(...d.held().map((r) => r.dueAt!)));
}

/** No "not synced" anywhere: not in the state's problems, not in the log. */
function noneNotSynced(d: Awaited<ReturnType<typeof daemonInStep>>) {
  expect(d.daemon.app.state.problems.list().map((p) => p.reason)).toEqual([]);
  expect(d.messages().filter((m) => m.includes(NOT_SYNCED))).toEqual([]);
}

describe('a folder put back while its delete is carried out', { timeout: BUSY_MACHINE_MS }, () => {
  it('put back while the service copy goes to the trash: the delete is cancelled, the document stays', async () => {
    const d = await daemonInStep();
    const [gone] = d.folders as [Folder];
    const before = contents(gone.path);
    d.remove(gone);
    await endHolds(d, 1);
    // The hold ended: the daemon saves the service's copy first, and it is slow to come.
    const copying = holdCalls(d.daemon.app, 'downloadAttachment', (_o, id) => id === gone.id);
    await eventually(() => copying.held() > 0);

    d.putBack(gone);
    copying.release();
    await eventually(() => d.messages().some((m) => CANCELLED.test(m)));
    expect(await d.sync()).toBe('synced');

    expect(await d.inService()).toContain(gone.id);
    expect(metaId(gone.path)).toBe(gone.id);
    expect(contents(gone.path)).toEqual(before);
    expect(d.held()).toEqual([]);
    expect(d.messages().filter((m) => m.includes('deleted the document in the service'))).toEqual(
      [],
    );
    expect(d.messages().filter((m) => CANCELLED.test(m))).toHaveLength(1);
    noneNotSynced(d);
  });

  it('`deletes approve --all`, folders put back before the approved deletes are carried out: those stay', async () => {
    const d = await daemonInStep();
    const [back, renamed, gone] = d.folders as [Folder, Folder, Folder];
    for (const f of [back, renamed, gone]) d.remove(f);
    // Three deletes, over `maxDeleteCount` 2: held for a person once their hold ended.
    await endHolds(d, 3);
    await eventually(() => {
      const rows = d.held();
      return rows.length === 3 && rows.every((r) => r.dueAt === null);
    });
    const ids = new Set([back.id, renamed.id, gone.id]);
    const copying = holdCalls(d.daemon.app, 'downloadAttachment', (_o, id) => ids.has(id));

    const approving = runCli(['deletes', 'approve', '--all', '--config', d.config], {
      env: d.env,
    });
    await eventually(() => copying.held() > 0);
    // One back under its own name, one under a name of the person's: both are found.
    d.putBack(back);
    const renamedTo = path.join(d.companyDir, 'Put back under another name');
    d.putBack(renamed, renamedTo);
    copying.release();
    expect((await approving).code).toBe(0);
    await eventually(() => !d.held().some((r) => r.documentId === gone.id));
    expect(await d.sync()).toBe('synced');

    const left = await d.inService();
    expect(left.has(back.id)).toBe(true);
    expect(left.has(renamed.id)).toBe(true);
    expect(left.has(gone.id)).toBe(false);
    expect(d.messages().filter((m) => CANCELLED.test(m))).toHaveLength(2);
    expect(metaId(back.path)).toBe(back.id);
    expect(metaId(renamedTo)).toBe(renamed.id);
    expect(d.held()).toEqual([]);
    noneNotSynced(d);
  });

  it('put back once the delete request had left: created again from the folder, its files intact', async () => {
    const d = await daemonInStep();
    const [gone] = d.folders as [Folder];
    const before = contents(gone.path);
    const ids = await d.inService();
    d.remove(gone);
    // The service deletes the document; its answer is what the test holds.
    const deleting = holdCalls(d.daemon.app, 'deleteDocument', (_o, id) => id === gone.id, {
      answer: true,
    });
    await endHolds(d, 1);
    await eventually(() => deleting.held() > 0);
    expect(await d.inService()).not.toContain(gone.id);

    d.putBack(gone);
    deleting.release();
    await eventually(() =>
      d.messages().some((m) => m.includes('deleted the document in the service')),
    );
    expect(await d.sync()).toBe('synced');
    expect(await d.sync()).toBe('synced');

    // The document again, under a new id, from the folder: one document, not two.
    const after = await d.dump();
    const again = after.documents.filter((doc) => !ids.has(doc.id));
    expect(again).toHaveLength(1);
    expect(after.documents).toHaveLength(ids.size);
    const newId = again[0]!.id;
    expect(metaId(gone.path)).toBe(newId);
    expect(contents(gone.path)).toEqual(before);
    const sha256 = (base64: string) =>
      createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex');
    expect(again[0]!.attachments.map((a) => a.sha256).sort()).toEqual(
      [...before.values()].map(sha256).sort(),
    );
    const said = d
      .messages()
      .filter((m) => m.includes('its folder was put back after docsync deleted it'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`new id ${newId}`);
    noneNotSynced(d);
  });
});
