import { describe, expect, it } from 'vitest';
import { EntityLocks } from '../../src/engine/entity-locks.js';

const A = { kind: 'company', id: '1' } as const;
const B = { kind: 'trust', id: '1' } as const;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('EntityLocks: one holder per entity, in the order asked', () => {
  it('grants one entity to one holder at a time, first come first served; others are free', async () => {
    const locks = new EntityLocks();
    const order: string[] = [];
    const first = await locks.acquire(A, 'sync');
    const second = locks.acquire(A, 'status page').then((l) => {
      order.push('status page');
      return l;
    });
    const third = locks.acquire(A, 'sync again').then((l) => {
      order.push('sync again');
      return l;
    });
    const other = await locks.acquire(B, 'sync of another');
    expect(locks.holderOf(A)).toBe('sync');
    expect(locks.holderOf(B)).toBe('sync of another');
    await tick();
    expect(order).toEqual([]);
    first.release();
    (await second).release();
    (await third).release();
    other.release();
    expect(order).toEqual(['status page', 'sync again']);
    expect(locks.stats()).toEqual({ grants: 4, violations: 0, held: 0, waiting: 0 });
  });

  it('is busy while held or waited for; tryAcquire never waits; onFree hears the end', async () => {
    const locks = new EntityLocks();
    const freed: string[] = [];
    locks.onFree((key) => freed.push(key));
    const lease = locks.tryAcquire(A, 'scan pass')!;
    expect(lease).not.toBeNull();
    expect(locks.isBusy(A)).toBe(true);
    expect(locks.isBusy('company:1')).toBe(true);
    expect(locks.isBusy(B)).toBe(false);
    expect(locks.tryAcquire(A, 'scan pass')).toBeNull();
    expect(await locks.runIfFree(A, 'scan pass', () => 'ran')).toBeNull();
    lease.release();
    lease.release(); // a second release changes nothing
    expect(freed).toEqual(['company:1']);
    expect(await locks.runIfFree(A, 'scan pass', () => 'ran')).toBe('ran');
  });

  it('run releases the lock however the job ends', async () => {
    const locks = new EntityLocks();
    await expect(
      locks.run(A, 'operator', () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(locks.isBusy(A)).toBe(false);
    expect(await locks.run(A, 'operator', async () => 42)).toBe(42);
  });

  it('counts a step made without the current lease as a violation, and says which', async () => {
    const seen: string[] = [];
    const locks = new EntityLocks(
      (v) => seen.push(`${v.owner} ${v.step} ${v.holder}`),
      () => 7,
    );
    const lease = await locks.acquire(A, 'sync');
    expect(locks.check(A, lease, 'plan')).toBe(true);
    expect(locks.check(B, lease, 'plan')).toBe(false); // another entity's lease
    expect(locks.check(A, undefined, 'execute')).toBe(false); // no lease at all
    lease.release();
    expect(locks.check(A, lease, 'move the cursor')).toBe(false); // released already
    expect(locks.violations).toBe(3);
    expect(seen).toEqual([
      'trust:1 plan null',
      'company:1 execute sync',
      'company:1 move the cursor null',
    ]);
    expect(locks.violationLog()[0]).toEqual({
      owner: 'trust:1',
      step: 'plan',
      holder: null,
      at: 7,
    });
  });

  it('idle resolves once nothing holds or waits for any lock', async () => {
    const locks = new EntityLocks();
    await locks.idle();
    const lease = await locks.acquire(A, 'sync');
    const waiting = locks.acquire(A, 'operator');
    let idle = false;
    void locks.idle().then(() => {
      idle = true;
    });
    lease.release();
    await tick();
    expect(idle).toBe(false);
    (await waiting).release();
    await tick();
    expect(idle).toBe(true);
  });
});
