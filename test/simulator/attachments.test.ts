import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Session, upload, useSimulators } from './sim-fixture.js';

const start = useSimulators();

async function documentWithAttachments(options = {}) {
  const session = await start(options);
  const company = session.sim.admin.createCompany({ name: 'Acme Pty Ltd' });
  const doc = session.sim.admin.createDocument({
    owner: { kind: 'company', id: company.id },
    name: 'Minutes',
  });
  const system = session.sim.admin.addAttachment(doc.id, {
    name: 'Generated.pdf',
    bytes: 'system bytes',
    system: true,
  });
  const base = `/companies/${company.id}/documents/${doc.id}`;
  return { ...session, base, docId: doc.id, systemId: system.id };
}

async function download(session: Session, base: string, id: string) {
  const link = await session.json('GET', `${base}/attachments/${id}/download`);
  return link;
}

describe('simulator attachments', () => {
  it('uploads a multipart file part and lists it as a UA attachment with its file name', async () => {
    const session = await documentWithAttachments();
    const bytes = Buffer.from('%PDF-1.4 hello');
    const answer = await upload(
      session,
      `${session.base}/attachments`,
      'Signed minutes.pdf',
      bytes,
    );
    expect(answer.status).toBe(201);
    const attachment = (await answer.json()) as any;
    expect(attachment).toEqual({
      id: expect.stringMatching(/^UA\d+$/),
      name: 'Signed minutes.pdf',
      creationDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    const details = await session.json('GET', session.base);
    expect(details.body.attachments.map((a: any) => a.id)).toEqual([
      session.systemId,
      attachment.id,
    ]);
    expect(session.systemId).toMatch(/^F\d+$/);
    const link = await download(session, session.base, attachment.id);
    const file = await fetch(link.body.url);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(bytes);
    const dump = await session.sim.admin.dump();
    const dumped = dump.documents[0]!.attachments.find((a) => a.id === attachment.id)!;
    expect(dumped.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('answers 400 to an upload without a file part and 413 above 50 MiB', async () => {
    const session = await documentWithAttachments();
    const form = new FormData();
    form.append('other', 'x');
    const missing = await fetch(`${session.sim.apiUrl}${session.base}/attachments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session.token}` },
      body: form,
    });
    expect(missing.status).toBe(400);
    const big = await upload(
      session,
      `${session.base}/attachments`,
      'big.bin',
      new Uint8Array(50 * 1024 * 1024 + 1),
    );
    expect(big.status).toBe(413);
    expect(((await big.json()) as any).error.code).toBe('too_large');
    expect((await session.json('GET', session.base)).body.attachments).toHaveLength(1);
  });

  it('gives a download link on another host that needs no auth and counts Authorization headers', async () => {
    const session = await documentWithAttachments();
    const link = await download(session, session.base, session.systemId);
    expect(link.status).toBe(200);
    expect(link.body.url.startsWith(session.sim.linkUrl)).toBe(true);
    expect(new URL(link.body.url).port).not.toBe(new URL(session.sim.apiUrl).port);
    const expiresIn = Date.parse(link.body.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(290_000);
    expect(expiresIn).toBeLessThanOrEqual(300_000);
    const file = await fetch(link.body.url);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('system bytes');
    expect(session.sim.admin.counters().links).toMatchObject({ requests: 1, withAuthorization: 0 });
    await fetch(link.body.url, { headers: { Authorization: `Bearer ${session.token}` } });
    expect(session.sim.admin.counters().links).toMatchObject({ requests: 2, withAuthorization: 1 });
  });

  it('expires a link after linkTtlSeconds with 403', async () => {
    const session = await documentWithAttachments({ linkTtlSeconds: 0.3 });
    const link = await download(session, session.base, session.systemId);
    await new Promise((r) => setTimeout(r, 400));
    const expired = await fetch(link.body.url);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as any).error.code).toBe('link_expired');
  });

  it('accepts a bare number for a user attachment but needs the prefix for a system one', async () => {
    const session = await documentWithAttachments();
    const user = (await (
      await upload(session, `${session.base}/attachments`, 'a.txt', Buffer.from('a'))
    ).json()) as any;
    const bare = String(user.id).slice(2);
    expect((await download(session, session.base, bare)).status).toBe(200);
    expect((await download(session, session.base, session.systemId.slice(1))).status).toBe(404);
    expect((await download(session, session.base, 'UA999999999')).status).toBe(404);
    expect((await session.call('DELETE', `${session.base}/attachments/${bare}`)).status).toBe(204);
    expect(
      (await session.json('GET', session.base)).body.attachments.map((a: any) => a.id),
    ).toEqual([session.systemId]);
  });

  it('refuses to delete a system attachment with 403 and moves lastUpdatedTimestamp on a user delete', async () => {
    const session = await documentWithAttachments();
    const denied = await session.json('DELETE', `${session.base}/attachments/${session.systemId}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
    const user = (await (
      await upload(session, `${session.base}/attachments`, 'a.txt', Buffer.from('a'))
    ).json()) as any;
    const stamp = async () => (await session.sim.admin.dump()).documents[0]!.lastUpdatedTimestamp;
    const before = await stamp();
    await session.call('DELETE', `${session.base}/attachments/${user.id}`);
    expect((await stamp()) > before).toBe(true);
    const link = await download(session, session.base, user.id);
    expect(link.status).toBe(404);
  });

  it('keeps uploads under dataDir and removes them with their attachment or document', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'sim-data-'));
    try {
      const session = await documentWithAttachments({ dataDir });
      const files = () => readdirSync(dataDir).filter((f) => f.startsWith('upload-'));
      const user = (await (
        await upload(session, `${session.base}/attachments`, 'a.txt', Buffer.from('a'))
      ).json()) as any;
      await upload(session, `${session.base}/attachments`, 'b.txt', Buffer.from('b'));
      expect(files()).toHaveLength(2);
      // The simulator removes a file after it answers: waited for, not given 50 ms.
      const filesLeft = async (count: number) => {
        for (let i = 0; i < 200 && files().length !== count; i++)
          await new Promise((r) => setTimeout(r, 25));
        expect(files()).toHaveLength(count);
      };
      await session.call('DELETE', `${session.base}/attachments/${user.id}`);
      await filesLeft(1);
      await session.call('DELETE', session.base);
      await filesLeft(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('answers 404 from the link host once the attachment is gone', async () => {
    const session = await documentWithAttachments();
    const user = (await (
      await upload(session, `${session.base}/attachments`, 'a.txt', Buffer.from('a'))
    ).json()) as any;
    const link = await download(session, session.base, user.id);
    await session.call('DELETE', `${session.base}/attachments/${user.id}`);
    expect((await fetch(link.body.url)).status).toBe(404);
  });
});
