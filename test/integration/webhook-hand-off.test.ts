/**
 * What the receiver hands on, and when: a new event once the service has its 200, with its
 * entity's work already recorded when docsync knows the entity; at a restart, only the events
 * pending whose entity's work they are not part of yet (the others are in their work rows, which
 * the daemon asks for itself). What becomes of an event's sync is the daemon's:
 * daemon-webhook-work.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Entity } from '../../src/domain/types.js';
import type { DocumentChangeEvent } from '../../src/triggers/webhook-event.js';
import { useSimulators } from '../helpers/simulator.js';
import { baseDocument, TRUST, useStateStore } from '../helpers/state-store.js';
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

describe('webhook hand-off', () => {
  it('answers first, with the event and its entity’s work recorded, then hands it on', async () => {
    const state = stateStore.open();
    const entity: Entity = {
      kind: 'trust',
      id: TRUST.id,
      name: 'Smith',
      abn: null,
      type: null,
      raw: {},
    };
    state.entities.upsert({ entity, folder: 'Trusts/Smith', matchedBy: 'created', updatedAt: 0 });
    let handed: string[] | null = null;
    const { receiver } = await startReceiver(state, {
      // What the daemon finds when it is handed the event.
      onEvent: () => {
        handed = state.work.all().map((row) => `${row.owner.id} ${row.reasons.join(' ')}`);
      },
    });

    const answer = await postWebhook(receiver.url, documentChange({ eventId: 'e1' }));

    expect(answer.status).toBe(200);
    expect(state.webhookEvents.get('e1')).toMatchObject({ state: 'received', owner: TRUST });
    await waitFor(() => handed !== null);
    expect(handed).toEqual([`${TRUST.id} webhook`]);
  });

  it('hands on at a restart only the pending events not yet part of an entity’s work', async () => {
    const state = stateStore.open();
    const first = await startReceiver(state);
    await postWebhook(first.receiver.url, documentChange({ eventId: 'unknown', entityId: 777 }));
    await first.receiver.close();
    const entity: Entity = {
      kind: 'trust',
      id: TRUST.id,
      name: 'Smith',
      abn: null,
      type: null,
      raw: {},
    };
    state.entities.upsert({ entity, folder: 'Trusts/Smith', matchedBy: 'created', updatedAt: 0 });
    const second = await startReceiver(state);
    await postWebhook(second.receiver.url, documentChange({ eventId: 'known' }));
    await second.receiver.close();
    expect(state.webhookEvents.pendingEvents().map((e) => e.eventId)).toEqual(['unknown', 'known']);

    const third = await startReceiver(state);
    await waitFor(() => third.seen.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(third.seen.map((e) => e.eventId)).toEqual(['unknown']);
  });

  it('keeps answering when onEvent fails or the resource lookup throws', async () => {
    const state = stateStore.open();
    const { receiver } = await startReceiver(state, {
      webhook: { resourceUrlTemplate: 'https://dms.example/doc/{documentId}' },
      resolveResource: () => {
        throw new Error('lookup broke');
      },
      onEvent: () => {
        throw new Error('engine broke');
      },
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
