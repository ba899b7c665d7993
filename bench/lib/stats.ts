/** Small numeric helpers for the result table. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
export const seconds = (valueMs: number) => `${(valueMs / 1000).toFixed(2)} s`;

export const sleep = (delayMs: number) => new Promise((resolve) => setTimeout(resolve, delayMs));

/** Polls `check` every `everyMs` until it is true; throws after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 5,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
