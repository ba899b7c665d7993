/**
 * The seed's clock, where a seed goes wrong: one that a test's timeout abandoned must not take
 * every later seed down with it ("Can't install fake timers twice").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EPOCH, VirtualClock } from './virtual-clock.js';

describe('VirtualClock', () => {
  let clocks: VirtualClock[] = [];
  afterEach(() => {
    for (const clock of clocks.reverse()) clock.uninstall();
    clocks = [];
  });

  it('takes the timers back from a seed that never uninstalled its clock', () => {
    const abandoned = new VirtualClock(EPOCH);
    clocks.push(abandoned);
    const next = new VirtualClock(EPOCH + 60_000);
    clocks.push(next);
    expect(Date.now()).toBe(EPOCH + 60_000);
    let fired = false;
    setTimeout(() => {
      fired = true;
    }, 1_000);
    expect(next.nextDue()).toBe(EPOCH + 61_000);
    next.fireNext();
    expect(fired).toBe(true);
    // The abandoned seed's late uninstall leaves the clock in use alone.
    abandoned.uninstall();
    expect(Date.now()).toBe(EPOCH + 61_000);
    next.uninstall();
    expect(Date.now()).toBeLessThan(EPOCH); // real time again
  });
});
