import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { upload, useSimulators } from './sim-fixture.js';

const start = useSimulators();

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly url: string;
}

const receivers: Server[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A webhook receiver on port 0; `answer` decides each reply from the attempt number. */
async function receiver(
  answer: (n: number) => { status: number; delayMs?: number } = () => ({ status: 200 }),
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body, url: req.url ?? '' });
      const { status, delayMs = 0 } = answer(received.length);
      setTimeout(() => {
        if (!res.destroyed)
          res
            .writeHead(status, { 'Content-Type': 'application/json' })
            .end(JSON.stringify({ message: `answer ${received.length}` }));
      }, delayMs);
    });
  });
  receivers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { received, url: `http://127.0.0.1:${port}/webhooks/document-change?tenant=a` };
}

/** The receiver's own check of api.md's signature, independent of the simulator's code. */
function verify(
  secret: string,
  url: string,
  authorization: string,
  body: string,
): { clientCode: string; date: string } {
  const [clientCode, date, signature] = authorization.split(' ');
  const expected = createHmac('sha256', secret).update(`${date}POST${url}${body}`).digest();
  const given = Buffer.from(signature!, 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new Error('bad signature');
  return { clientCode: clientCode!, date: date! };
}

// Short waits between tries; a patient timeout, so a loaded machine's slow answer is not a retry.
const delivery = { retryScheduleMs: [50, 100, 150], timeoutMs: 10_000 };

describe('simulator webhooks', () => {
  it('posts a signed Document Change for each change, API changes included', async () => {
    const target = await receiver();
    const session = await start({
      webhook: { url: target.url, clientCode: 'DOCSYNC', secret: 's3cret' },
      webhookDelivery: delivery,
    });
    const company = session.sim.admin.createCompany({ name: 'Acme Pty Ltd' });
    const doc = session.sim.admin.createDocument({
      owner: { kind: 'company', id: company.id },
      name: 'Minutes',
    });
    const base = `/companies/${company.id}/documents/${doc.id}`;
    await session.json('POST', `${base}/statuses`, { typeId: 2, effectiveDate: '2024-01-01' });
    const added = (await (
      await upload(session, `${base}/attachments`, 'a.pdf', Buffer.from('x'))
    ).json()) as any;
    await session.call('DELETE', `${base}/attachments/${added.id}`);
    await session.call('DELETE', base);
    await session.sim.admin.webhooksIdle();
    const messages = target.received.map((r) => JSON.parse(r.body));
    expect(messages.map((m) => m.eventSubType).sort()).toEqual([
      'deleteDocument',
      'newAttachment',
      'newDocument',
      'newStatus',
      'statusChange',
    ]);
    for (const [i, r] of target.received.entries()) {
      expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const { clientCode, date } = verify('s3cret', target.url, r.headers.authorization!, r.body);
      expect(clientCode).toBe('DOCSYNC');
      expect(date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Math.abs(Date.parse(date) - Date.now())).toBeLessThan(5000);
      expect(messages[i]).toEqual({
        entityId: company.id,
        eventId: expect.any(String),
        eventType: 'documentChange',
        eventSubType: expect.any(String),
        firmId: expect.any(String),
        tenants: [{ tenantId: String(doc.id), tenantType: 'documentId' }],
        userId: expect.any(String),
      });
    }
    expect(() =>
      verify(
        'wrong',
        target.url,
        target.received[0]!.headers.authorization!,
        target.received[0]!.body,
      ),
    ).toThrow();
  });

  it('retries a delivery without 2xx on the schedule, same eventId, and logs every attempt', async () => {
    const target = await receiver((n) => ({ status: n < 3 ? 503 : 200 }));
    const session = await start({ webhookDelivery: delivery });
    session.sim.admin.setWebhook({ url: target.url, clientCode: 'C', secret: 'k' });
    const company = session.sim.admin.createCompany({ name: 'Acme Pty Ltd' });
    session.sim.admin.createDocument({
      owner: { kind: 'company', id: company.id },
      name: 'Minutes',
    });
    await session.sim.admin.webhooksIdle();
    const ids = target.received.map((r) => JSON.parse(r.body).eventId);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    const log = session.sim.admin.webhookDeliveries();
    expect(log.map((a) => [a.attempt, a.status, a.delivered, a.nextRetryInMs])).toEqual([
      [1, 503, false, 50],
      [2, 503, false, 100],
      [3, 200, true, null],
    ]);
    expect(log[2]!.responseBody).toBe('{"message":"answer 3"}');
  });

  it('counts a receiver slower than the timeout as a failure and gives up after the schedule', async () => {
    const target = await receiver(() => ({ status: 200, delayMs: 1000 }));
    const session = await start({ webhookDelivery: { retryScheduleMs: [20], timeoutMs: 100 } });
    session.sim.admin.setWebhook({ url: target.url, clientCode: 'C', secret: 'k' });
    const company = session.sim.admin.createCompany({ name: 'Acme Pty Ltd' });
    session.sim.admin.createDocument({
      owner: { kind: 'company', id: company.id },
      name: 'Minutes',
    });
    await session.sim.admin.webhooksIdle();
    const log = session.sim.admin.webhookDeliveries();
    expect(log.map((a) => [a.attempt, a.status, a.delivered, a.nextRetryInMs])).toEqual([
      [1, null, false, 20],
      [2, null, false, null],
    ]);
    expect(log[0]!.error).toMatch(/abort|timeout/i);
  });

  it('signs with the skewed server clock', async () => {
    const target = await receiver();
    const session = await start({
      clockOffsetMs: -3_600_000,
      webhook: { url: target.url, clientCode: 'C', secret: 'k' },
    });
    const company = session.sim.admin.createCompany({ name: 'Acme Pty Ltd' });
    session.sim.admin.createDocument({
      owner: { kind: 'company', id: company.id },
      name: 'Minutes',
    });
    await session.sim.admin.webhooksIdle();
    const { date } = verify(
      'k',
      target.url,
      target.received[0]!.headers.authorization!,
      target.received[0]!.body,
    );
    expect(Date.now() - Date.parse(date)).toBeGreaterThan(3_500_000);
    const answer = await session.call('GET', '/companies?offset=0&limit=1');
    expect(Date.now() - Date.parse(answer.headers.get('date')!)).toBeGreaterThan(3_500_000);
    const stamp = (await session.sim.admin.dump()).documents[0]!.lastUpdatedTimestamp;
    expect(Date.now() - Date.parse(`${stamp.slice(0, 23)}Z`)).toBeGreaterThan(3_500_000);
  });
});
