/**
 * The `resourceUrl` the webhook answer gives the service, over real HTTP: with
 * `status.publicUrl`, a stable link to the status listener that works at once, also for a
 * document docsync has not synced, and leads to where the document is each time it is followed;
 * without it, the folder's link when docsync knows the folder, else the service's page.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { entityDeepLink } from '../../src/domain/deep-links.js';
import type { StateStore } from '../../src/state/state-store.js';
import type { StatusServer } from '../../src/web/status-server.js';
import { baseDocument, TRUST, useStateStore } from '../helpers/state-store.js';
import { IDLE_RUNTIME, startTestStatusServer } from '../helpers/status-server.js';
import { documentChange, postWebhook, useWebhookReceivers } from '../helpers/webhook-receiver.js';

const stateStore = useStateStore();
const startReceiver = useWebhookReceivers();
const servers: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const WEB_URL = 'https://app.example.com';
const TEMPLATE = 'https://files.example.com/open?path={path}';

async function statusServer(state: StateStore): Promise<StatusServer> {
  const server = await startTestStatusServer(state, {
    config: { service: { webUrl: WEB_URL }, webhook: { resourceUrlTemplate: TEMPLATE } },
    runtime: () => ({ ...IDLE_RUNTIME, watcherMode: 'off' }),
  });
  servers.push(server);
  return server;
}

/** Where the link leads now: the redirect's target. */
async function follow(url: string): Promise<string | null> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return response.headers.get('location');
}

const trustRecord = {
  entity: {
    kind: 'trust' as const,
    id: TRUST.id,
    name: 'Smith Family Trust',
    abn: null,
    type: null,
    raw: {},
  },
  folder: 'Trusts/Smith Family Trust',
  matchedBy: 'name' as const,
  updatedAt: 0,
};

describe('webhook resourceUrl', () => {
  it('with status.publicUrl answers a stable link that leads to where the document is now', async () => {
    const state = stateStore.open();
    const status = await statusServer(state);
    const { receiver } = await startReceiver(state, {
      webhook: { resourceUrlTemplate: TEMPLATE },
      links: { service: { webUrl: WEB_URL }, status: { enabled: true, publicUrl: status.url } },
    });
    const doc = baseDocument();
    const message = documentChange({
      entityId: TRUST.id,
      tenants: [{ tenantId: doc.id, tenantType: 'documentId' }],
    });

    // A new document of an entity docsync has never seen: the link is there all the same.
    const answer = await postWebhook(receiver.url, message);
    expect(answer.status).toBe(200);
    expect(answer.json.resourceUrl).toBe(`${status.url}/documents/${doc.id}?entity=${TRUST.id}`);
    expect(await follow(answer.json.resourceUrl)).toBe(`${WEB_URL}/s/html/main.html`);

    // The entity is known, the document not synced yet: the service's page of the entity.
    state.entities.upsert(trustRecord);
    expect(await follow(answer.json.resourceUrl)).toBe(entityDeepLink(WEB_URL, TRUST));

    // Synced: the folder's link; and the same link follows the folder where it moves.
    state.base.put(doc);
    expect(await follow(answer.json.resourceUrl)).toBe(
      `https://files.example.com/open?path=${encodeURIComponent(doc.folder)}`,
    );
    state.base.put({ ...doc, folder: 'Trusts/Smith Family Trust/Minutes moved' });
    expect(await follow(answer.json.resourceUrl)).toBe(
      `https://files.example.com/open?path=${encodeURIComponent('Trusts/Smith Family Trust/Minutes moved')}`,
    );
  });

  it('without status.publicUrl answers the folder link when known, else the service page', async () => {
    const state = stateStore.open();
    state.entities.upsert(trustRecord);
    state.base.put(baseDocument());
    const { receiver } = await startReceiver(state, {
      webhook: { resourceUrlTemplate: TEMPLATE },
      links: { service: { webUrl: WEB_URL } },
    });

    const synced = await postWebhook(receiver.url, documentChange({ entityId: TRUST.id }));
    const fresh = await postWebhook(
      receiver.url,
      documentChange({
        entityId: TRUST.id,
        tenants: [{ tenantId: '999', tenantType: 'documentId' }],
      }),
    );

    expect(synced.json.resourceUrl).toBe(
      `https://files.example.com/open?path=${encodeURIComponent(baseDocument().folder)}`,
    );
    expect(fresh.json.resourceUrl).toBe(entityDeepLink(WEB_URL, TRUST));
  });

  it('gives a stable link with an event it ignores, when the event names a document', async () => {
    const state = stateStore.open();
    const { receiver } = await startReceiver(state, {
      links: {
        service: { webUrl: WEB_URL },
        status: { enabled: true, publicUrl: 'https://docsync.example.com/' },
      },
    });
    const answer = await postWebhook(
      receiver.url,
      documentChange({ eventSubType: 'renamedDocument', entityId: 7 }),
    );
    expect(answer.status).toBe(200);
    expect(answer.json.resourceUrl).toBe('https://docsync.example.com/documents/1075468?entity=7');
  });

  it('answers 404 on a document link without an id, and keeps the other routes', async () => {
    const state = stateStore.open();
    const status = await statusServer(state);
    expect((await fetch(`${status.url}/documents/`)).status).toBe(404);
    expect((await fetch(`${status.url}/documents/%E0%A4%A`)).status).toBe(404);
    expect((await fetch(`${status.url}/healthz`)).status).not.toBe(404);
  });
});
