/**
 * A person's decision from the command line goes to whoever has the store (issue 25): while
 * another docsync holds the state's lock, `docsync conflicts resolve` records the decision and
 * waits for its outcome; when that docsync stops without carrying it out, the command has the
 * store and carries it out itself.
 */
import { describe, expect, it } from 'vitest';
import { InstanceLock } from '../../src/state/instance-lock.js';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const HOUR = 3_600_000;

describe('a decision handed over to whoever has the store', () => {
  it('waits while another docsync holds the state, then carries it out itself once that one stops', async () => {
    const h = await start();
    const [company] = await h.owners();
    const doc = h.sim.admin.createDocument({ owner: company!, name: 'Board Minutes' });
    const id = String(doc.id);
    await h.sync();
    const folder = h.documentFolder(id)!;
    h.sim.admin.assignStatus(id, { typeId: 21 });
    h.editMeta(folder, (m) => ({ ...m, status: 'CANCELLED' }), Date.now() - HOUR);
    await h.sync();
    const [conflict] = h.state.conflicts.list(1, { open: true });
    expect(conflict).toMatchObject({ winner: 'remote' });

    // Another docsync (this test, standing in for a daemon that then stops) holds the state.
    const lock = InstanceLock.acquire(h.state.db);
    const resolving = h.cli(['conflicts', 'resolve', String(conflict!.id), 'keep-mine']);
    while (h.state.operatorDecisions.open().length === 0)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const [waiting] = h.state.operatorDecisions.open();
    expect(waiting).toMatchObject({ kind: 'resolve-conflict' });
    // Long enough for the command to say what it waits for; nothing changed meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(h.meta(folder).status).toBe('LODGED');
    lock.release();

    const resolved = await resolving;
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toContain('resolved: keep-mine');
    expect(resolved.stderr).toContain('waiting for it');
    expect(h.meta(folder).status).toBe('CANCELLED');
    expect(h.state.operatorDecisions.open()).toEqual([]);
    expect(h.state.operatorDecisions.get(waiting!.id)?.outcomeJson).toContain('"ok":true');
  }, 60_000);

  it('prints a refusal recorded as the outcome as the command line would have (exit 1)', async () => {
    const h = await start();
    await h.sync();
    const refused = await h.cli(['conflicts', 'resolve', '99', 'keep-mine']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('No conflict has the id 99');
  });
});
