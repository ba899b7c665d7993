/**
 * Crash test (docs/state.md "Crash safety"): the built CLI runs `docsync run --once` in a child
 * process on a store with pushes and pulls pending, and is killed with SIGKILL at a spread of
 * moments (the simulator's latency stretches the run so the kills land mid-run); then a run goes
 * to completion (in-process: only a kill needs a process). Whatever the moment: no document is created twice, no byte a user wrote is lost
 * (it is in the service, the folder or the trash), both sides hold the same documents,
 * statuses and bytes, and a further run is quiet.
 */
import { describe, expect, it } from 'vitest';
import { writeCliConfig } from '../helpers/cli-config.js';
import { type ChildRun, runOnceChild } from '../helpers/killed-run.js';
import { runCli } from '../helpers/run-cli.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { type SyncHarness, sha256, useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const FIRM = {
  companies: 2,
  trusts: 2,
  documentsPerEntity: 3,
  attachmentsPerDocument: 2,
  seed: 21,
};
/** Added to every answer of the service, so one run spans a few hundred milliseconds. */
const LATENCY_MS = 8;
const NEW_FOLDERS = ['2024-02-03 Board Pack', '2024-02-04 Tax Return', 'Signed Deed'];

/** Pushes and pulls of every kind, pending; returns the bytes a user wrote. */
async function pendingWork(h: SyncHarness): Promise<string[]> {
  const written: string[] = [];
  const write = (rel: string, text: string) => {
    h.write(rel, text);
    written.push(sha256(text));
  };
  const owners = await h.owners();
  const docs = (await h.remote()).documents;
  for (const [i, name] of NEW_FOLDERS.entries()) {
    const entity = h.entityFolder(owners[i]!);
    write(`${entity}/${name}/one.pdf`, `${name} one`);
    write(`${entity}/${name}/two.txt`, `${name} two`);
  }
  const folder = (i: number) => h.documentFolder(docs[i]!.id)!;
  h.editMeta(folder(0), (m) => ({ ...m, status: 'lodged' }));
  h.editMeta(folder(1), (m) => ({ ...m, status: 'Sent to client', statusDate: '2024-03-01' }));
  write(`${folder(2)}/added.txt`, 'added locally');
  const user = docs[3]!.attachments.find((a) => a.kind === 'user')!;
  write(`${folder(3)}/${user.name}`, 'replaced locally');
  h.remove(folder(4));

  for (const [i, owner] of owners.slice(0, 2).entries()) {
    const doc = h.sim.admin.createDocument({ owner, name: `Service Doc ${i}` });
    h.sim.admin.addAttachment(doc.id, { name: 'form.pdf', bytes: `form ${i}` });
    h.sim.admin.addAttachment(doc.id, { name: 'Generated.pdf', bytes: `gen ${i}`, system: true });
  }
  h.sim.admin.assignStatus(docs[6]!.id, { typeId: 20 });
  h.sim.admin.addAttachment(docs[7]!.id, { name: 'from service.pdf', bytes: 'from service' });
  const gone = docs[8]!.attachments.find((a) => a.kind === 'user')!;
  h.sim.admin.deleteAttachment(docs[8]!.id, gone.id);
  h.sim.admin.deleteDocument(docs[9]!.id);
  return written;
}

/** Counters are reset first, so `killAt` counts the requests of this run only. */
function runOnce(h: SyncHarness, config: string, killAt: number): Promise<ChildRun> {
  h.resetCounters();
  return runOnceChild(h, config, killAt);
}

/**
 * `docsync run --once` to its end, in this process: what the killed runs left is recovered by
 * the same program a child would run, without a process start for each of the 20 runs that are
 * not killed (a kill needs a process; an uninterrupted run does not).
 */
async function runOnceToTheEnd(h: SyncHarness, config: string): Promise<ChildRun> {
  h.resetCounters();
  const env = { DOCSYNC_REFRESH_TOKEN: h.sim.admin.mintRefreshToken() };
  const run = await runCli(['run', '--once', '--config', config], { env });
  return { killed: false, code: run.code, stderr: run.stderr };
}

async function crashAndRecover(killAt: readonly number[]) {
  const h = await start({ seed: FIRM });
  expect((await h.sync()).result).toBe('ok');
  const written = await pendingWork(h);
  const before = (await h.remote()).documents.length;
  const config = writeCliConfig(h.root.slice(0, -'/documents'.length), h.sim, {
    settleSeconds: 0,
    queue: { requestsPerSecond: 1000, concurrency: 4 },
    log: { level: 'error' },
  });
  h.sim.admin.setFaults({ latencyMs: LATENCY_MS });
  let kills = 0;
  for (const n of killAt) if ((await runOnce(h, config, n)).killed) kills++;
  const done = await runOnceToTheEnd(h, config);
  h.sim.admin.setFaults({});
  expect(done, done.stderr).toMatchObject({ killed: false, code: 0 });

  const dump = await h.remote();
  // `before` already has the service's changes: the three new folders come, one local delete goes.
  expect(dump.documents).toHaveLength(before + NEW_FOLDERS.length - 1);
  for (const name of NEW_FOLDERS) {
    const title = name.replace(/^\d{4}-\d{2}-\d{2} /, '');
    expect(
      dump.documents.filter((d) => d.name === title),
      `documents named ${title}`,
    ).toHaveLength(1);
  }
  const kept = new Set([
    ...dump.documents.flatMap((d) => d.attachments.map((a) => a.sha256)),
    ...h.tree().values(),
    ...h.trash().values(),
  ]);
  for (const hash of written) expect(kept.has(hash), `bytes ${hash} kept somewhere`).toBe(true);
  await expectInSync(h);

  const tree = h.tree();
  const mtimes = h.mtimes();
  const again = await runOnceToTheEnd(h, config);
  expect(again.code).toBe(0);
  expect(h.writesToService()).toEqual({});
  expect(h.tree()).toEqual(tree);
  expect(h.mtimes()).toEqual(mtimes);
  return kills;
}

describe('crash test: SIGKILL during docsync run --once', () => {
  // An uninterrupted run serves about 48 requests: about 12 reads to plan, then the pushes,
  // downloads and read-backs. Each case kills the first run after its K-th request (spread over
  // the whole run) and then the recovery run too, part way into settling what the first left.
  const firstKills = [10, 14, 18, 22, 26, 30, 34, 38, 42, 46];
  it.each(firstKills)(
    'killed after request %i and again in recovery, then run to completion',
    async (k) => {
      const kills = await crashAndRecover([k, 9 + (k % 13)]);
      expect(kills).toBeGreaterThan(0);
    },
    // Three to four real processes each, two of them killed: room for a busy machine.
    90_000,
  );
});
