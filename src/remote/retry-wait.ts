/**
 * How a retry sits out the delay `retryDelay` chose: real time, ended early by a stop. A caller
 * that wants the decisions and not the seconds (a test of what a failing command says after its
 * retries) passes its own, which sees each delay and the stop signal.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves after `ms`; rejects when `signal` aborts first. */
export type RetryWait = (ms: number, signal: AbortSignal) => Promise<unknown>;

export const waitRealTime: RetryWait = (ms, signal) => sleep(ms, undefined, { signal });
