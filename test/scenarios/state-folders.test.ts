/**
 * A `.docsync/tmp` or `.docsync/trash` replaced by a link to a folder outside the document
 * folder: a cycle pulls nothing through it and trashes nothing into it, reports why and what to
 * do, and syncs normally once the link is gone.
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
const outsides: string[] = [];
afterEach(() => {
  for (const dir of outsides.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function outsideFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'docsync-outside-'));
  outsides.push(dir);
  return dir;
}

describe('docsync folders replaced by links', () => {
  it('pulls nothing through a .docsync/tmp link and trashes nothing into a .docsync/trash link', async () => {
    const h = await start();
    await h.sync();
    const [company] = await h.owners();
    const [gone] = (await h.remote()).documents.filter(
      (d) => d.owner.kind === company!.kind && d.owner.id === company!.id,
    );
    const goneFolder = h.documentFolder(gone!.id)!;
    const outside = outsideFolder();
    rmSync(path.join(h.root, '.docsync/tmp'), { recursive: true });
    symlinkSync(outside, path.join(h.root, '.docsync/tmp'));
    rmSync(path.join(h.root, '.docsync/trash'), { recursive: true, force: true });
    symlinkSync(outside, path.join(h.root, '.docsync/trash'));
    const doc = h.sim.admin.createDocument({
      owner: company!,
      name: 'Form 484',
      documentDate: '2024-02-29',
    });
    h.sim.admin.addAttachment(String(doc.id), { name: 'form.pdf', bytes: 'form' });
    h.sim.admin.deleteDocument(gone!.id);

    expect((await h.sync()).result).toBe('partial');

    expect(readdirSync(outside)).toEqual([]);
    expect(h.documentFolder(String(doc.id))).toBeUndefined();
    expect(h.exists(goneFolder)).toBe(true);
    const reasons = h.state.problems.list().map((p) => p.reason);
    expect(reasons.some((r) => r.includes('.docsync/tmp is a symbolic link to'))).toBe(true);
    expect(reasons.some((r) => r.includes('.docsync/trash is a symbolic link to'))).toBe(true);

    rmSync(path.join(h.root, '.docsync/tmp'));
    rmSync(path.join(h.root, '.docsync/trash'));
    expect((await h.sync()).result).toBe('ok');
    expect(h.documentFolder(String(doc.id))).toBeDefined();
    expect(h.exists(goneFolder)).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
  });
});
