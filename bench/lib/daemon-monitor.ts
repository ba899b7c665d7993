/**
 * What a monitor and a user see of a running daemon, over a whole bench run: `/healthz` and
 * `/metrics` polled once a second, and how long until something shows on disk.
 */
import type { DaemonProcess } from './daemon-process.js';
import { sleep } from './stats.js';

/** Polls `check` every `everyMs` until it holds (the ms it took) or `stopped()` (null). */
export async function timed(check: () => boolean, everyMs: number, stopped: () => boolean) {
  const started = performance.now();
  while (!check()) {
    if (stopped()) return null;
    await sleep(everyMs);
  }
  return performance.now() - started;
}

/** `/healthz` (timed) and `/metrics`' worst loop delay, each once a second, until stopped. */
export async function monitor(daemon: DaemonProcess, stopped: () => boolean) {
  const healthz: number[] = [];
  const lag: number[] = [];
  /** When each of `lag` was read (epoch ms), to find what the daemon did then. */
  const lagAt: number[] = [];
  const every = async (step: () => Promise<void>) => {
    while (!stopped()) {
      const started = performance.now();
      await step().catch(() => undefined);
      await sleep(Math.max(0, 1000 - (performance.now() - started)));
    }
  };
  const loops = Promise.all([
    every(async () => {
      const started = performance.now();
      await (await fetch(`${daemon.statusUrl}/healthz`)).text();
      healthz.push(performance.now() - started);
    }),
    every(async () => {
      const text = await (await fetch(`${daemon.statusUrl}/metrics`)).text();
      const max = /^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1];
      if (max !== undefined) {
        lag.push(Number(max) * 1000);
        lagAt.push(Date.now());
      }
    }),
  ]);
  return { healthz, lag, lagAt, done: loops };
}
