import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { toDocumentChangeEvent } from '../../src/triggers/webhook-event.js';
import { useStateStore } from '../helpers/state-store.js';
import {
  documentChange,
  postWebhook,
  useWebhookReceivers,
  waitFor,
} from '../helpers/webhook-receiver.js';

const stateStore = useStateStore();
const startReceiver = useWebhookReceivers();

/** Streams `bytes` in chunks without a Content-Length, so only the running count can stop it. */
function postChunked(url: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(16 * 1024, 'x');
    for (let sent = 0; sent < bytes; sent += chunk.length) req.write(chunk);
    req.end();
  });
}

describe('webhook receiver', () => {
  it('answers a signed message 200, stores it and hands it on with ids as strings', async () => {
    const state = stateStore.open();
    const { receiver, seen } = await startReceiver(state);
    const message = documentChange({ eventId: 4711 });

    const answer = await postWebhook(receiver.url, message);

    expect(answer.status).toBe(200);
    expect(answer.json.message).toMatch(/4711/);
    expect(answer.json).not.toHaveProperty('resourceUrl');
    await waitFor(() => seen.length === 1);
    expect(seen[0]).toMatchObject({
      eventId: '4711',
      entityId: '20053',
      subType: 'newDocument',
      documentIds: ['1075468'],
      attempt: 1,
    });
    expect(state.webhookEvents.get('4711')).toMatchObject({
      state: 'received',
      rawBody: JSON.stringify(message),
    });
  });

  it.each([
    ['left out', documentChange({ eventSubType: undefined })],
    ['null', documentChange({ eventSubType: null })],
  ])(
    'takes a message whose eventSubType is %s as a change of its entity, after a restart too',
    async (_how, message) => {
      const state = stateStore.open();
      const { receiver, seen } = await startReceiver(state);

      const answer = await postWebhook(receiver.url, message);

      expect(answer.status).toBe(200);
      await waitFor(() => seen.length === 1);
      expect(seen[0]).toMatchObject({ entityId: '20053', subType: null, documentIds: ['1075468'] });
      const stored = state.webhookEvents.get(String(message.eventId))!;
      expect(toDocumentChangeEvent(stored).subType).toBeNull();
    },
  );

  it('answers the same eventId twice with 200 and works on it once', async () => {
    const state = stateStore.open();
    const { receiver, seen, metrics } = await startReceiver(state);
    const message = documentChange();

    const first = await postWebhook(receiver.url, message);
    const second = await postWebhook(receiver.url, message);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.json.message).toMatch(/already received/);
    await waitFor(() => seen.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toHaveLength(1);
    const text = await metrics.text();
    expect(text).toContain('docsync_webhook_events_total{result="accepted"} 1');
    expect(text).toContain('docsync_webhook_events_total{result="duplicate"} 1');
  });

  // The receiver's clock stands still at NOW: a date's age is the rule's, not this machine's pace.
  const NOW = Date.parse('2026-11-27T10:00:00.000Z');
  it.each([
    ['a wrong signature', { secret: 'not-the-secret' }, /signature does not match/],
    ['a wrong client code', { clientCode: 'SOMEONE' }, /unknown client code/],
    ['a date 6 minutes old', { date: new Date(NOW - 6 * 60_000) }, /360 s from our clock/],
    ['a date 6 minutes ahead', { date: new Date(NOW + 6 * 60_000) }, /360 s from our clock/],
    ['a signature over another URL', { signedUrl: 'http://elsewhere/hook' }, /does not match/],
    ['no signature', { sign: false }, /no Authorization header/],
  ])('refuses %s with 401 and a reason', async (_name, options, reason) => {
    const state = stateStore.open();
    const { receiver, seen } = await startReceiver(state, { now: () => NOW });
    const message = documentChange();

    const answer = await postWebhook(receiver.url, message, { date: new Date(NOW), ...options });

    expect(answer.status).toBe(401);
    expect(answer.json.message).toMatch(reason);
    expect(state.webhookEvents.get(String(message.eventId))).toBeNull();
    expect(seen).toEqual([]);
  });

  it('takes unsigned messages with allowUnsigned, but still checks a signed one', async () => {
    const state = stateStore.open();
    const { receiver } = await startReceiver(state, { webhook: { allowUnsigned: true } });

    expect((await postWebhook(receiver.url, documentChange(), { sign: false })).status).toBe(200);
    const forged = await postWebhook(receiver.url, documentChange(), { secret: 'wrong' });
    expect(forged.status).toBe(401);
  });

  it('checks the signature against webhook.publicUrl when docsync is behind a proxy', async () => {
    const state = stateStore.open();
    const publicUrl = 'https://docsync.example.com/hooks/document-change?firm=3001';
    const { receiver } = await startReceiver(state, { webhook: { publicUrl } });

    const direct = await postWebhook(receiver.url, documentChange());
    const proxied = await postWebhook(receiver.url, documentChange(), { signedUrl: publicUrl });

    expect(direct.status).toBe(401);
    expect(proxied.status).toBe(200);
  });

  it.each([
    ['a body that is no JSON', '{"eventId": ', /not a JSON text/],
    ['a sub-type that is no string', documentChange({ eventSubType: 7 }), /eventSubType: /],
    ['an event type that is no string', documentChange({ eventType: 7 }), /eventType: /],
    ['a missing field', documentChange({ userId: undefined }), /userId: required/],
    ['a wrong id type', documentChange({ entityId: { id: 1 } }), /entityId: expected an id/],
    [
      'a tenant without its id',
      documentChange({ tenants: [{ tenantType: 'documentId' }] }),
      /tenants\.0\.tenantId: required/,
    ],
  ])('refuses %s with 400 naming the field', async (_name, body, reason) => {
    const state = stateStore.open();
    const { receiver, seen } = await startReceiver(state);

    const answer = await postWebhook(receiver.url, body);

    expect(answer.status).toBe(400);
    expect(answer.json.message).toMatch(reason);
    expect(seen).toEqual([]);
  });

  it.each([
    [
      'sub-type',
      documentChange({ eventSubType: 'renamedDocument' }),
      /documentChange\/renamedDocument/,
    ],
    [
      'event type',
      { eventType: 'contactChange', eventId: 'c-1', entityId: 20053, contactId: 9 },
      /contactChange/,
    ],
  ])('answers an unknown %s 200, counts it and does nothing with it', async (_what, body, type) => {
    const state = stateStore.open();
    const { receiver, seen, metrics } = await startReceiver(state);

    const answer = await postWebhook(receiver.url, body);

    expect(answer.status).toBe(200);
    expect(answer.json.message).toMatch(type);
    expect(answer.json.message).toMatch(/ignored/);
    expect(await metrics.text()).toContain('docsync_webhook_events_total{result="ignored"} 1');
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([]);
    expect(state.webhookEvents.pendingEvents()).toEqual([]);
  });

  it('checks the signature of an unknown event too', async () => {
    const state = stateStore.open();
    const { receiver } = await startReceiver(state);
    const forged = await postWebhook(
      receiver.url,
      documentChange({ eventSubType: 'renamedDocument' }),
      { secret: 'wrong' },
    );
    expect(forged.status).toBe(401);
  });

  it('refuses a body over 64 KiB with 413, declared or streamed', async () => {
    const state = stateStore.open();
    const { receiver, metrics } = await startReceiver(state);
    const big = documentChange({ userId: 'u'.repeat(70 * 1024) });

    const declared = await postWebhook(receiver.url, big);
    const streamed = await postChunked(receiver.url, 200 * 1024);

    expect(declared.status).toBe(413);
    expect(declared.json.message).toMatch(/larger than 65536 bytes/);
    expect(streamed.status).toBe(413);
    expect(await metrics.text()).toContain('docsync_webhook_events_total{result="oversized"} 2');
  });

  it('answers 404 off its path and 405 to other methods, and keeps answering good messages', async () => {
    const state = stateStore.open();
    const { receiver, seen } = await startReceiver(state);
    const other = receiver.url.replace('/webhooks/document-change', '/elsewhere');

    expect((await postWebhook(other, documentChange())).status).toBe(404);
    const get = await fetch(receiver.url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    await postWebhook(receiver.url, '\u0000\u0001 garbage');
    await postChunked(receiver.url, 100 * 1024);
    await postWebhook(receiver.url, documentChange(), { secret: 'wrong' });

    const good = await postWebhook(receiver.url, documentChange());
    expect(good.status).toBe(200);
    await waitFor(() => seen.length === 1);
  });
});
