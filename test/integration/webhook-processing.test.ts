import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import type { DocumentChangeEvent } from '../../src/triggers/webhook-event.js';
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
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('webhook processing', () => {
  it('answers before the work: a 3 s onEvent does not delay the 200', async () => {
    const state = stateStore.open();
    const finished: string[] = [];
    const { receiver } = await startReceiver(state, {
      onEvent: async (event) => {
        await new Promise((r) => setTimeout(r, 3_000));
        finished.push(event.eventId);
      },
    });
    const message = documentChange();

    const answer = await postWebhook(receiver.url, message);

    expect(answer.status).toBe(200);
    expect(answer.ms).toBeLessThan(1_000);
    expect(finished).toEqual([]);
    expect(state.webhookEvents.get(String(message.eventId))?.state).toBe('received');
    await waitFor(() => finished.length === 1, 6_000);
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

  it('retries a failing event, then leaves it failed to the scheduled cycle', async () => {
    const state = stateStore.open();
    const attempts: number[] = [];
    const { receiver, metrics } = await startReceiver(state, {
      retryDelayMs: 20,
      onEvent: (event) => {
        attempts.push(event.attempt);
        throw new Error(`service unreachable (attempt ${event.attempt})`);
      },
    });
    await postWebhook(receiver.url, documentChange({ eventId: 'flaky' }));

    await waitFor(() => state.webhookEvents.get('flaky')?.state === 'failed');
    expect(attempts).toEqual([1, 2, 3]);
    expect(state.webhookEvents.get('flaky')?.lastError).toBe('service unreachable (attempt 3)');
    expect(await metrics.text()).toContain('docsync_webhook_events_total{result="failed"} 3');
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
    sim = await startSimulator({
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
