/**
 * `docsync deletes` (issue 17): a delete rail holds deletes in the state, a person lists them,
 * approves or discards them, and the next run acts on the decision. Through the built CLI on the
 * harness's folder, state and simulator, where the exit codes and sentences are what a user sees.
 */
import { describe, expect, it } from 'vitest';
import { expectInSync } from '../helpers/sync-assertions.js';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

/** Four documents per entity; at most two deletes per run before the rail holds them. */
const FIRM = { companies: 1, trusts: 1, documentsPerEntity: 4, attachmentsPerDocument: 1, seed: 5 };

async function synced(onRemoteDelete: 'trash' | 'delete' = 'trash') {
  const h = await start({
    seed: FIRM,
    settings: { maxDeleteCount: 2, maxDeletePercent: 100, onRemoteDelete },
  });
  expect((await h.sync()).result).toBe('ok');
  const dump = await h.remote();
  const companyDocs = dump.documents.filter((d) => d.owner.kind === 'company').map((d) => d.id);
  return { h, companyDocs };
}

describe('docsync deletes', () => {
  it('a rail holds service deletes; `deletes list` shows them; `approve --all` lets the next run trash them', async () => {
    const { h, companyDocs } = await synced();
    const gone = companyDocs.slice(0, 3);
    const folders = gone.map((id) => h.documentFolder(id)!);
    for (const id of gone) h.sim.admin.deleteDocument(id);

    const stopped = await h.cli(['run', '--once']);
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toMatch(/`[^`]* --config \S+ deletes list`/);
    expect(stopped.stderr).not.toMatch(/run with --force-deletes/);

    const status = await h.cli(['status']);
    expect(status.stdout).toContain('Held deletes: 3');
    expect(status.stdout).toMatch(/decide with `[^`]* --config \S+ deletes approve\|discard`/);
    expect(status.stdout).not.toContain('--force-deletes');

    const listed = await h.cli(['deletes', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('3 deletes held');
    for (const id of gone) expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('the service deleted the document');
    const json = JSON.parse((await h.cli(['deletes', '--json'])).stdout) as { side: string }[];
    expect(json.map((r) => r.side)).toEqual(['local', 'local', 'local']);

    const approved = await h.cli(['deletes', 'approve', '--all']);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('Approved 3 held deletes');
    for (const folder of folders) expect(h.exists(folder)).toBe(true);

    const run = await h.cli(['run', '--once']);
    expect(run.code).toBe(0);
    for (const folder of folders) expect(h.exists(folder)).toBe(false);
    const trashed = [...h.trash().keys()];
    for (const folder of folders) expect(trashed.some((rel) => rel.startsWith(folder))).toBe(true);
    expect((await h.cli(['deletes'])).stdout).toContain('No deletes are held.');
    await expectInSync(h);
  });

  it('`discard` of deletes held in the service: the folders come back, the service keeps the documents', async () => {
    const { h, companyDocs } = await synced();
    const gone = companyDocs.slice(0, 3);
    for (const id of gone) h.remove(h.documentFolder(id)!);

    expect((await h.cli(['run', '--once'])).code).toBe(2);
    const listed = await h.cli(['deletes', 'list']);
    expect(listed.stdout).toContain('delete the document in the service');

    const discarded = await h.cli(['deletes', 'discard', ...gone]);
    expect(discarded.code).toBe(0);
    expect(discarded.stdout).toContain('downloads its folder again');

    const run = await h.cli(['run', '--once']);
    expect(run.code).toBe(0);
    const remaining = (await h.remote()).documents.map((d) => d.id);
    for (const id of gone) {
      expect(remaining).toContain(id);
      expect(h.documentFolder(id)).toBeDefined();
    }
    expect(h.state.heldDeletes.list()).toEqual([]);
    await expectInSync(h);
    // Decided and settled: the rail does not hold them again, nothing is deleted later.
    expect((await h.cli(['run', '--once'])).code).toBe(0);
    expect((await h.remote()).documents.map((d) => d.id)).toEqual(remaining);
  });

  it('one held delete discarded, the others approved: the discarded folder is created again in the service', async () => {
    const { h, companyDocs } = await synced();
    const before = new Set((await h.remote()).documents.map((d) => d.id));
    const [kept, ...trashed] = companyDocs.slice(0, 3) as [string, ...string[]];
    const keptFolder = h.documentFolder(kept)!;
    const keptName = h.meta(keptFolder).name;
    for (const id of [kept, ...trashed]) h.sim.admin.deleteDocument(id);
    expect((await h.cli(['run', '--once'])).code).toBe(2);

    expect((await h.cli(['deletes', 'discard', kept])).code).toBe(0);
    expect((await h.cli(['deletes', 'approve', ...trashed])).code).toBe(0);
    expect((await h.cli(['run', '--once'])).code).toBe(0);

    for (const id of trashed) expect(h.documentFolder(id)).toBeUndefined();
    const again = (await h.remote()).documents.filter((d) => !before.has(d.id));
    expect(again.map((d) => d.name)).toEqual([keptName]);
    expect(h.documentFolder(again[0]!.id)).toBeDefined();
    expect(h.state.heldDeletes.list()).toEqual([]);
    await expectInSync(h);
  });

  it('an id that names no held delete is refused with a sentence, and nothing is decided', async () => {
    const { h, companyDocs } = await synced();
    for (const id of companyDocs.slice(0, 3)) h.remove(h.documentFolder(id)!);
    expect((await h.cli(['run', '--once'])).code).toBe(2);

    const wrong = await h.cli(['deletes', 'approve', companyDocs[0]!, 'no-such-doc']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('No held delete is for document no-such-doc');
    expect(h.state.heldDeletes.decided()).toEqual([]);
    const neither = await h.cli(['deletes', 'approve']);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('or give --all');
  });

  it('`approve --all` lets through only what waits for a decision: a discarded delete stays discarded until named', async () => {
    const { h, companyDocs } = await synced();
    const [kept, ...others] = companyDocs.slice(0, 3) as [string, ...string[]];
    for (const id of [kept, ...others]) h.sim.admin.deleteDocument(id);
    expect((await h.cli(['run', '--once'])).code).toBe(2);
    expect((await h.cli(['deletes', 'discard', kept])).code).toBe(0);

    const all = await h.cli(['deletes', 'approve', '--all']);

    expect(all.code).toBe(0);
    expect(all.stdout).toContain('Approved 2 held deletes');
    const decisions = () =>
      new Map(h.state.heldDeletes.list().map((r) => [r.documentId, r.decision]));
    expect(decisions().get(kept)).toBe('discard');
    for (const id of others) expect(decisions().get(id)).toBe('approve');
    const again = await h.cli(['deletes', 'approve', '--all']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'No held delete is waiting for a decision; to change one already decided, name it by document id',
    );
    // Named, a decision changes.
    expect((await h.cli(['deletes', 'approve', kept])).code).toBe(0);
    expect(decisions().get(kept)).toBe('approve');
  });

  it('with onRemoteDelete "delete", what approving does is said as it is: deleted for good, not kept in the trash', async () => {
    const { h, companyDocs } = await synced('delete');
    const gone = companyDocs.slice(0, 3);
    const folders = gone.map((id) => h.documentFolder(id)!);
    for (const id of gone) h.sim.admin.deleteDocument(id);
    expect((await h.cli(['run', '--once'])).code).toBe(2);

    const listed = await h.cli(['deletes', 'list']);
    expect(listed.stdout).toContain(
      `would delete ${folders[0]} for good (onRemoteDelete is "delete")`,
    );
    expect(listed.stdout).not.toContain('to the trash');
    const approved = await h.cli(['deletes', 'approve', '--all']);
    expect(approved.stdout).toContain(
      'the folder is deleted for good, not kept in .docsync/trash/',
    );
    expect(approved.stdout).not.toContain('goes to .docsync/trash/');

    expect((await h.cli(['run', '--once'])).code).toBe(0);
    for (const folder of folders) expect(h.exists(folder)).toBe(false);
    expect([...h.trash().keys()].filter((rel) => folders.some((f) => rel.startsWith(f)))).toEqual(
      [],
    );
  });
});
