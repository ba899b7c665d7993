import type { BenchResult } from './lib/result.js';

export async function webhookLatency(): Promise<BenchResult> {
  throw new Error('not built yet');
}
