import { describe, expect, it } from 'vitest';
import { OwnWrites } from '../../src/local/own-writes.js';

const file = { size: 3, mtimeMs: 1000 };
const asFile = { ...file, isDir: false };

function withClock(ttlMs = 1000) {
  let now = 0;
  const writes = new OwnWrites({ ttlMs, now: () => now });
  return { writes, advance: (ms: number) => (now += ms) };
}

describe('OwnWrites', () => {
  it('knows a write by path, size and mtime until it expires', () => {
    const { writes, advance } = withClock();
    writes.recordFile('/root/a.pdf', file);
    expect(writes.isOwn('/root/a.pdf', asFile)).toBe(true);
    expect(writes.isOwn('/root/a.pdf', { ...asFile, size: 4 })).toBe(false);
    advance(1001);
    expect(writes.isOwn('/root/a.pdf', asFile)).toBe(false);
  });

  it('covers everything below a removed folder', () => {
    const { writes } = withClock();
    writes.recordRemoved('/root/Companies/Acme/doc');
    expect(writes.isOwn('/root/Companies/Acme/doc/a.pdf', null)).toBe(true);
    expect(writes.isOwn('/root/Companies/Acme/other', null)).toBe(false);
  });

  it('lets go of old entries as it records new ones, not only when asked', () => {
    const { writes, advance } = withClock();
    for (let i = 0; i < 1000; i++) writes.recordFile(`/root/${i}.pdf`, file);
    writes.recordRemoved('/root/gone');
    advance(1001);
    writes.recordDir('/root/new');
    expect(writes.size).toBe(1);
  });

  it('keeps a path recorded again for the full time from its last record', () => {
    const { writes, advance } = withClock();
    writes.recordFile('/root/a.pdf', file);
    writes.recordFile('/root/b.pdf', file);
    advance(600);
    writes.recordFile('/root/a.pdf', file);
    advance(600);
    writes.recordDir('/root/c');
    expect(writes.isOwn('/root/a.pdf', asFile)).toBe(true);
    expect(writes.isOwn('/root/b.pdf', asFile)).toBe(false);
    expect(writes.size).toBe(2);
  });

  it('forgets a write after 30 s by default, so a user who edits a file we just wrote is heard', () => {
    let now = 0;
    const writes = new OwnWrites({ now: () => now });
    writes.recordFile('/root/a.pdf', file);
    writes.recordDir('/root/doc');
    now = 29_000;
    expect(writes.isOwn('/root/a.pdf', asFile)).toBe(true);
    expect(writes.isOwn('/root/doc', { ...asFile, isDir: true })).toBe(true);
    now = 30_001;
    expect(writes.isOwn('/root/a.pdf', asFile)).toBe(false);
    expect(writes.size).toBe(0);
  });
});
