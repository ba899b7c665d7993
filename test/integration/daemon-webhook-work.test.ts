/**
 * A webhook event is work on its entity, at the level a user reaches: `docsync run`'s daemon in
 * this process, the simulator on port 0, a real folder and state file, and a clock of the test's
 * own for the backoffs. The event is done only when a sync of its entity succeeded; a failed sync
 * counts an attempt and the entity's row brings the next try after its backoff; a stop counts
 * nothing and the next start offers the event again; one entity's long sync holds back no other
 * entity's event; an entity the daemon does not know yet makes it read the list again.
 */
import { describe, expect, it } from 'vitest';
import { firmInStep, HOOK, NEVER } from '../helpers/daemon-firm.js';
import { holdDocumentDetails, useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { TestClock } from '../helpers/test-clock.js';
import { postWebhook } from '../helpers/webhook-receiver.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

async function firm() {
  const made = await firmInStep(startSim, tempDir(), {
    companies: 2,
    trusts: 1,
    documentsPerEntity: 1,
    attachmentsPerDocument: 1,
    seed: 41,
  });
  // Only the webhooks start syncs: no round, no sweep of the unlodged list.
  const config = made.config({ schedule: { ...NEVER, unlodgedSweepShare: 0 } });
  return { ...made, config };
}

/** A `newDocument` message about `documentId` of `entityId`, as the service sends it. */
function newDocument(hook: string, eventId: string, entityId: string, documentId: string) {
  return postWebhook(
    hook,
    {
      entityId,
      eventId,
      eventType: 'documentChange',
      eventSubType: 'newDocument',
      firmId: 'firm-1',
      tenants: [{ tenantId: documentId, tenantType: 'documentId' }],
      userId: 'someone',
    },
    HOOK,
  );
}

describe('a webhook event as work on its entity', () => {
  it('is done only when its sync succeeded: a failure counts an attempt, the row brings the retry', async () => {
    const { sim, env, config } = await firm();
    const clock = new TestClock();
    const daemon = startDaemon(config, env, { clock });
    await daemon.started;
    const hook = daemon.url('webhook receiver listening');
    await eventually(() => daemon.output().includes('poll round finished'));
    const company = (await sim.admin.dump()).companies[0]!;
    const added = sim.admin.createDocument({
      owner: { kind: 'company', id: String(company.id) },
      name: 'Letter of engagement',
    });
    const event = () => daemon.app.state.webhookEvents.get('e-fail');
    // An answer the client does not retry, so the sync fails at once.
    sim.admin.setFaults({ routes: { '/companies/{ownerId}/documents': 400 } });

    expect((await newDocument(hook, 'e-fail', String(company.id), String(added.id))).status).toBe(
      200,
    );
    await eventually(() => event()?.attempts === 1, 30_000);
    expect(event()).toMatchObject({ state: 'received', lastError: expect.any(String) });
    expect(daemon.output()).toContain('webhook event failed; tried again later');

    sim.admin.setFaults({});
    // Nothing but the entity's row tries again, once its backoff (5 s) has passed.
    clock.advance(5_000);
    await eventually(() => event()?.state === 'done', 30_000);
    expect(event()?.attempts).toBe(2);
    expect(daemon.app.state.work.all()).toEqual([]);
  }, 60_000);

  it('counts nothing when the daemon stops during its sync, and is done after the next start', async () => {
    const { sim, env, config } = await firm();
    const first = startDaemon(config, env);
    await first.started;
    await eventually(() => first.output().includes('poll round finished'));
    const company = (await sim.admin.dump()).companies[0]!;
    const added = sim.admin.createDocument({
      owner: { kind: 'company', id: String(company.id) },
      name: 'Minutes',
    });
    const door = holdDocumentDetails(first.app, String(added.id));
    const hook = first.url('webhook receiver listening');
    await newDocument(hook, 'e-stop', String(company.id), String(added.id));
    await eventually(() => door.held() === 1, 30_000);

    const stopped = first.stop();
    door.release();
    await stopped;
    const again = startDaemon(config, env);
    await again.started;
    // Nothing was counted at the stop: the one attempt is the sync after the start.
    await eventually(() => again.app.state.webhookEvents.get('e-stop')?.state === 'done', 30_000);
    expect(again.app.state.webhookEvents.get('e-stop')?.attempts).toBe(1);
    expect(first.output()).not.toContain('webhook event failed');
  }, 60_000);

  it("of one entity does not wait for another entity's long sync", async () => {
    const { sim, env, config } = await firm();
    const daemon = startDaemon(config, env);
    await daemon.started;
    await eventually(() => daemon.output().includes('poll round finished'));
    const hook = daemon.url('webhook receiver listening');
    const dump = await sim.admin.dump();
    const [slow, quick] = [dump.companies[0]!, dump.trusts[0]!];
    const slowDoc = sim.admin.createDocument({
      owner: { kind: 'company', id: String(slow.id) },
      name: 'Minutes',
    });
    const quickDoc = sim.admin.createDocument({
      owner: { kind: 'trust', id: String(quick.id) },
      name: 'Deed',
    });
    const door = holdDocumentDetails(daemon.app, String(slowDoc.id));
    const state = (id: string) => daemon.app.state.webhookEvents.get(id)?.state;

    await newDocument(hook, 'slow', String(slow.id), String(slowDoc.id));
    await eventually(() => door.held() === 1, 30_000);
    await newDocument(hook, 'quick', String(quick.id), String(quickDoc.id));
    await eventually(() => state('quick') === 'done', 30_000);
    expect(state('slow')).toBe('received');

    door.release();
    await eventually(() => state('slow') === 'done', 30_000);
  }, 60_000);

  it('of an entity the service removed meanwhile is moot once its failed sync made the list be read', async () => {
    const { sim, env, config } = await firm();
    const daemon = startDaemon(config, env);
    await daemon.started;
    await eventually(() => daemon.output().includes('poll round finished'));
    const hook = daemon.url('webhook receiver listening');
    const gone = (await sim.admin.dump()).documents.find((d) => d.owner.kind === 'company');
    sim.admin.deleteEntity({ kind: 'company', id: gone!.owner.id });

    await newDocument(hook, 'moot', String(gone!.owner.id), String(gone!.id));
    await eventually(() => daemon.app.state.webhookEvents.get('moot')?.state === 'done', 30_000);
    expect(daemon.app.state.webhookEvents.get('moot')?.attempts).toBe(1);
    expect(
      daemon.app.state.entities.get({ kind: 'company', id: String(gone!.owner.id) }),
    ).toBeNull();
  }, 60_000);

  it('of an entity not known yet reads the list again, after its backoff when the list fails', async () => {
    const { sim, env, config } = await firm();
    const clock = new TestClock();
    const daemon = startDaemon(config, env, { clock });
    await daemon.started;
    await eventually(() => daemon.output().includes('poll round finished'));
    const hook = daemon.url('webhook receiver listening');
    const event = (id: string) => daemon.app.state.webhookEvents.get(id);

    // Not in the service's list at all: done, with the warning.
    await newDocument(hook, 'nobody', '999999', '1');
    await eventually(() => event('nobody')?.state === 'done', 30_000);
    expect(daemon.output()).toContain('a webhook named an entity the service does not list');

    // A new company, while the list cannot be read: an attempt, and the list read again later.
    sim.admin.setFaults({ routes: { '/companies': 400 } });
    const company = sim.admin.createCompany({ name: 'Newco Pty Ltd' });
    const added = sim.admin.createDocument({
      owner: { kind: 'company', id: String(company.id) },
      name: 'Constitution',
    });
    await newDocument(hook, 'newco', String(company.id), String(added.id));
    await eventually(() => event('newco')?.attempts === 1, 30_000);
    expect(event('newco')).toMatchObject({ state: 'received', owner: null });

    sim.admin.setFaults({});
    clock.advance(5_000);
    await eventually(() => event('newco')?.state === 'done', 30_000);
    expect(event('newco')?.owner).toEqual({ kind: 'company', id: String(company.id) });
    expect(daemon.app.state.work.all()).toEqual([]);
  }, 60_000);
});
