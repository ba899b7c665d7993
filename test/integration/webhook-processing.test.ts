import { describe, expect, it } from 'vitest';
import { RunStoppedError } from '../../src/domain/errors.js';
import type { DocumentChangeEvent } from '../../src/triggers/webhook-event.js';
import { useSimulators } from '../helpers/simulator.js';
import { baseDocument, useStateStore } from '../helpers/state-store.js';
import {
  CLIENT_CODE,
  documentChange,
  postWebhook,
  SECRET,
  useWebhookReceivers,
  waitFor,
} from '../helpers/webhook-receiver.js';

const stateStore = useStateStore();
const startReceiver = useWebhookReceivers();
const startSim = useSimulators();

describe('webhook processing', () => {
  it('answers before the work: the 200 comes while the event is still being worked on', async () => {
    const state = stateStore.open();
    const finished: string[] = [];
    let started = false;
    let finish = () => {};
    const { receiver } = await startReceiver(state, {
      // The work ends only when the test says, after it has the answer.
      onEvent: async (event) => {
        started = true;
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        finished.push(event.eventId);
      },
    });
    const message = documentChange();

    const answer = await postWebhook(receiver.url, message);

    expect(answer.status).toBe(200);
    expect(finished).toEqual([]);
    expect(state.webhookEvents.get(String(message.eventId))?.state).toBe('received');
    await waitFor(() => started, 10_000);
    finish();
    await waitFor(() => finished.length === 1, 10_000);
    await waitFor(() => state.webhookEvents.get(String(message.eventId))?.state === 'done');
  });

  it('offers events left pending at close again after a restart', async () => {
    const state = stateStore.open();
    const interrupted: string[] = [];
    const first = await startReceiver(state, {
      // Works until the receiver closes, as a long targeted sync would.
      onEvent: (event, { signal }) =>
        new Promise<void>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            interrupted.push(event.eventId);
            reject(signal.reason);
          });
        }),
    });
    const a = documentChange({ eventId: 'a' });
    const b = documentChange({ eventId: 'b' });
    expect((await postWebhook(first.receiver.url, a)).status).toBe(200);
    expect((await postWebhook(first.receiver.url, b)).status).toBe(200);
    await waitFor(() => state.webhookEvents.get('a') !== null);

    await first.receiver.close();
    expect(interrupted).toEqual(['a']);
    expect(state.webhookEvents.pendingEvents().map((e) => e.eventId)).toEqual(['a', 'b']);
    expect(state.webhookEvents.get('a')?.attempts).toBe(0);

    const second = await startReceiver(stateStore.open());
    await waitFor(() => second.seen.length === 2);
    expect(second.seen.map((e) => e.eventId)).toEqual(['a', 'b']);
    await waitFor(() => state.webhookEvents.countPending() === 0);
  });

  it('counts no attempt for work a stop cut before the receiver closed, and offers it again', async () => {
    // The daemon stops its request queue first, then closes the receiver: an event whose work
    // reads the catalogue meanwhile ends in the queue's refusal, which is the stop, not a failure.
    const state = stateStore.open();
    let tried = 0;
    const first = await startReceiver(state, {
      onEvent: () => {
        tried++;
        throw new RunStoppedError('not sent: docsync is stopping', false);
      },
    });
    await postWebhook(first.receiver.url, documentChange({ eventId: 'cut' }));
    await waitFor(() => tried === 1);
    await first.receiver.close();

    expect(state.webhookEvents.get('cut')).toMatchObject({ state: 'received', attempts: 0 });
    const second = await startReceiver(stateStore.open());
    await waitFor(() => state.webhookEvents.get('cut')?.state === 'done');
    expect(second.seen.map((e) => e.eventId)).toEqual(['cut']);
  });

  it('retries a failing event with a growing wait, then leaves it failed to the scheduled cycle', async () => {
    const state = stateStore.open();
    const attempts: number[] = [];
    const at: number[] = [];
    const { receiver, metrics } = await startReceiver(state, {
      retryDelayMs: 50,
      maxAttempts: 3,
      onEvent: (event) => {
        at.push(Date.now());
        attempts.push(event.attempt);
        throw new Error(`service unreachable (attempt ${event.attempt})`);
      },
    });
    await postWebhook(receiver.url, documentChange({ eventId: 'flaky' }));

    await waitFor(() => state.webhookEvents.get('flaky')?.state === 'failed');
    expect(attempts).toEqual([1, 2, 3]);
    // 50 ms after the first failure, 100 ms after the second.
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(45);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(95);
    expect(state.webhookEvents.get('flaky')?.lastError).toBe('service unreachable (attempt 3)');
    expect(await metrics.text()).toContain('docsync_webhook_events_total{result="failed"} 3');
  });

  it('keeps a failed event until its retry is due, across a restart', async () => {
    const state = stateStore.open();
    const first = await startReceiver(state, {
      retryDelayMs: 60_000,
      onEvent: () => Promise.reject(new Error('the sync failed')),
    });
    await postWebhook(first.receiver.url, documentChange({ eventId: 'later' }));
    await waitFor(() => state.webhookEvents.get('later')?.attempts === 1);
    const due = state.webhookEvents.get('later')!.nextAttemptAt!;
    expect(due).toBeGreaterThan(Date.now() + 50_000);
    await first.receiver.close();

    let now = Date.now();
    const second = await startReceiver(state, { now: () => now });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second.seen).toEqual([]);
    expect(state.webhookEvents.get('later')?.state).toBe('received');
    // Its time comes: offered again (the receiver's timer, here a new offer at that time).
    await second.receiver.close();
    now = due + 1;
    const third = await startReceiver(state, { now: () => now });
    await waitFor(() => third.seen.length === 1);
    expect(third.seen[0]).toMatchObject({ eventId: 'later', attempt: 2 });
  });

  it("works on different entities' events side by side, and on one entity's in order", async () => {
    const state = stateStore.open();
    const started: string[] = [];
    const finished: string[] = [];
    const release = new Map<string, () => void>();
    const { receiver } = await startReceiver(state, {
      onEvent: (event) =>
        new Promise<void>((resolve) => {
          started.push(event.eventId);
          release.set(event.eventId, () => {
            finished.push(event.eventId);
            resolve();
          });
        }),
    });
    const post = (eventId: string, entityId: number) =>
      postWebhook(receiver.url, documentChange({ eventId, entityId }));
    await post('a1', 1);
    await post('a2', 1);
    await post('b1', 2);
    await waitFor(() => started.length === 2);
    // a1 holds entity 1 (a long sync): b1 starts beside it, a2 waits for a1.
    expect(started).toEqual(['a1', 'b1']);
    release.get('b1')!();
    await waitFor(() => state.webhookEvents.get('b1')?.state === 'done');
    expect(started).toEqual(['a1', 'b1']);
    release.get('a1')!();
    await waitFor(() => started.length === 3);
    expect(started).toEqual(['a1', 'b1', 'a2']);
    release.get('a2')!();
    await waitFor(() => state.webhookEvents.countPending() === 0);
    expect(finished).toEqual(['b1', 'a1', 'a2']);
  });

  it('works on at most 64 entities at once, more than the 8 urgent syncs (issue 28)', async () => {
    const state = stateStore.open();
    let running = 0;
    let most = 0;
    // Every sync waits until all 70 events are in: what runs at once is the processor's cap,
    // not how fast this machine posts.
    let allPosted!: () => void;
    const posted = new Promise<void>((resolve) => (allPosted = resolve));
    const { receiver } = await startReceiver(state, {
      onEvent: async () => {
        running++;
        most = Math.max(most, running);
        await posted;
        running--;
      },
    });
    // Events of entities whose syncs wait (an entity mid-burst) must not hold back the others.
    for (let entity = 1; entity <= 70; entity++)
      await postWebhook(receiver.url, documentChange({ entityId: entity }));
    await waitFor(() => running === 64);
    allPosted();
    await waitFor(() => state.webhookEvents.countPending() === 0);
    expect(most).toBe(64);
  });

  it('keeps answering when onEvent fails or the resource lookup throws', async () => {
    const state = stateStore.open();
    const { receiver } = await startReceiver(state, {
      webhook: { resourceUrlTemplate: 'https://dms.example/doc/{documentId}' },
      resolveResource: () => {
        throw new Error('lookup broke');
      },
      onEvent: () => Promise.reject(new Error('engine broke')),
    });

    const answer = await postWebhook(receiver.url, documentChange());

    expect(answer.status).toBe(200);
    expect(answer.json).not.toHaveProperty('resourceUrl');
    expect((await postWebhook(receiver.url, documentChange())).status).toBe(200);
  });

  it('fills resourceUrl from the template with what the state knows, or leaves it out', async () => {
    const state = stateStore.open();
    state.base.put(baseDocument());
    const { receiver } = await startReceiver(state, {
      webhook: {
        resourceUrlTemplate: 'https://dms.example/open?kind={ownerKind}&id={ownerId}&path={path}',
      },
    });

    const known = await postWebhook(receiver.url, documentChange());
    const unknown = await postWebhook(
      receiver.url,
      documentChange({ tenants: [{ tenantId: '999', tenantType: 'documentId' }] }),
    );

    expect(known.json.resourceUrl).toBe(
      `https://dms.example/open?kind=trust&id=20053&path=${encodeURIComponent(baseDocument().folder)}`,
    );
    expect(unknown.status).toBe(200);
    expect(unknown.json).not.toHaveProperty('resourceUrl');
  });

  it('takes what the real simulator signs and sends, once per change', async () => {
    const state = stateStore.open();
    const { receiver, seen } = await startReceiver(state, {
      webhook: { resourceUrlTemplate: 'https://dms.example/doc/{documentId}' },
    });
    const sim = await startSim({
      webhookDelivery: { retryScheduleMs: [50, 100], timeoutMs: 2_000 },
    });
    sim.admin.setWebhook({
      url: `${receiver.url}?firm=3001`,
      clientCode: CLIENT_CODE,
      secret: SECRET,
    });
    const company = sim.admin.createCompany({ name: 'Acme Pty Ltd' });

    const doc = sim.admin.createDocument({
      owner: { kind: 'company', id: company.id },
      name: 'Minutes',
    });
    await sim.admin.webhooksIdle();

    const deliveries = sim.admin.webhookDeliveries();
    expect(deliveries.map((d) => d.status)).toEqual([200]);
    expect(JSON.parse(deliveries[0]!.responseBody!)).toMatchObject({
      resourceUrl: `https://dms.example/doc/${doc.id}`,
    });
    await waitFor(() => seen.length === 1);
    expect(seen[0]).toMatchObject<Partial<DocumentChangeEvent>>({
      entityId: String(company.id),
      subType: 'newDocument',
      documentIds: [String(doc.id)],
    });
  });
});
