/**
 * The status page's memory of the last hour: the daemon's request rate, its budget and what
 * waits in each lane, sampled every few seconds into a fixed ring, so the charts cost a few
 * kilobytes and no database. Lost on restart, which is fine: /metrics is the long record.
 */
import { LANES, type Lane } from '../domain/lanes.js';
import type { RuntimeStatus } from './runtime-status.js';

export interface Sample {
  readonly at: number;
  readonly requestsPerSecond: number;
  /** The budget (`queue.requestsPerSecond`); null when the runtime does not say. */
  readonly budget: number | null;
  /** Syncs and requests waiting, per lane; null outside the daemon. */
  readonly waiting: Readonly<Record<Lane, number>> | null;
}

/** One hour at one sample every 5 s. */
export const SAMPLE_EVERY_MS = 5_000;
export const SAMPLES_KEPT = 720;

export class SampleRing {
  readonly #samples: Sample[] = [];
  #next = 0;

  constructor(private readonly capacity = SAMPLES_KEPT) {}

  add(sample: Sample): void {
    if (this.#samples.length < this.capacity) this.#samples.push(sample);
    else this.#samples[this.#next] = sample;
    this.#next = (this.#next + 1) % this.capacity;
  }

  /** Oldest first. */
  list(): Sample[] {
    if (this.#samples.length < this.capacity) return [...this.#samples];
    return [...this.#samples.slice(this.#next), ...this.#samples.slice(0, this.#next)];
  }
}

export function sampleOf(runtime: RuntimeStatus, at: number): Sample {
  const lanes = runtime.work?.lanes;
  return {
    at,
    requestsPerSecond: runtime.requestsPerSecond,
    budget: runtime.requestBudgetPerSecond ?? null,
    waiting: lanes
      ? (Object.fromEntries(
          LANES.map((lane) => [lane, lanes[lane].syncsWaiting + lanes[lane].requestsWaiting]),
        ) as Record<Lane, number>)
      : null,
  };
}
