import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LockHeldError } from '../../src/domain/errors.js';
import { InstanceLock } from '../../src/state/instance-lock.js';
import { openDatabase } from '../../src/state/open-database.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A real process that stays alive while the test runs, to stand for another daemon. */
function otherProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
    stdio: 'ignore',
  });
  children.push(child);
  return child.pid!;
}

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('single-instance lock', () => {
  it('refuses a second instance while the first is alive', () => {
    const db = openDatabase(path.join(tempDir(), 'docsync.db'));
    InstanceLock.acquire(db, { pid: otherProcess() });
    expect(() => InstanceLock.acquire(db)).toThrow(LockHeldError);
    expect(() => InstanceLock.acquire(db)).toThrow(/Two daemons must never share one store/);
    db.close();
  });

  it('refuses across two connections to the same file, as two daemons would have', () => {
    const file = path.join(tempDir(), 'docsync.db');
    const first = openDatabase(file);
    const second = openDatabase(file);
    InstanceLock.acquire(first, { pid: otherProcess() });
    expect(() => InstanceLock.acquire(second)).toThrow(LockHeldError);
    first.close();
    second.close();
  });

  it('takes over a lock whose holder died without releasing it', async () => {
    const db = openDatabase(path.join(tempDir(), 'docsync.db'));
    InstanceLock.acquire(db, { pid: await deadPid() });
    const lock = InstanceLock.acquire(db);
    expect(() => lock.renew()).not.toThrow();
    db.close();
  });

  it('takes over an expired lock, even from a live process on another host', () => {
    const db = openDatabase(path.join(tempDir(), 'docsync.db'));
    let now = 1_000_000;
    const stale = InstanceLock.acquire(db, {
      hostname: 'elsewhere',
      ttlMs: 60_000,
      now: () => now,
    });
    now += 61_000;
    InstanceLock.acquire(db, { now: () => now });
    expect(() => stale.renew()).toThrow(/taken over/);
    db.close();
  });

  it('lets the next instance in once released', () => {
    const db = openDatabase(path.join(tempDir(), 'docsync.db'));
    InstanceLock.acquire(db, { pid: otherProcess() }).release();
    expect(() => InstanceLock.acquire(db)).not.toThrow();
    db.close();
  });
});
